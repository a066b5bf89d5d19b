"""The ipsec scenario with the fake gnf: the encrypt variant's loss counted by the counters (its ESP
frames carry no readable stamp), the tunnel's by the stamps, the configs each variant runs, the
cores a 200 G gateway needs, gnf-esp-bench's figures beside them, and the ipsec drop note."""
import json
import os

from gnfbench import cli, rates
from reportcheck import check_report, searched_rate, tables

from test_scenarios import run_cli

TITLE_GCM = "AES-128-GCM: NDR, its cost and latency at low load, per variant, size and path"
CORES = "How many cores a 200 G IPsec gateway needs on each path"
CPU_GCM = ["--paths", "cpu", "--ciphers", "gcm", "--sizes", "1420", "--speed", "10", "--resolution", "2%"]


def rows_by(table, keys):
    return {tuple(r[k] for k in keys): dict(zip(table[0], r)) for r in table[1:]}


def test_the_encrypt_variant_is_searched_by_the_counters_and_the_tunnel_by_the_stamps(fake_gnf, tmp_path):
    # Encrypted frames reach the sink as foreign ones (received 0): by the stamps every trial lost
    # all, by the counters the gateway forwards the fake's capacity.
    fake_gnf.set(capacity_pps=3e5, unstamped="ipsec-bench-gcm.toml")
    rc, folder = run_cli(fake_gnf, tmp_path, "ipsec", "--quick", *CPU_GCM)
    assert rc == 0
    md, rj = check_report(str(folder))
    rows = rows_by(tables(md)[TITLE_GCM], (0, 1, 2))
    resolution = 0.02 * rates.line_rate_pps(10, 1420)
    for variant in ("encrypt", "tunnel"):
        ndr = searched_rate(rows[(variant, "1420 B", "cpu")]["NDR Mpps"])[0] * 1e6
        assert 3e5 - resolution <= ndr <= 3e5, variant
    assert rows[("encrypt", "1420 B", "cpu")]["low-load p50 µs"] == "–"
    assert rows[("tunnel", "1420 B", "cpu")]["low-load p50 µs"] != "–"
    configs = {}
    for argv in fake_gnf.calls():
        if "--calibrate" not in argv:
            configs.setdefault(os.path.basename(argv[argv.index("--config") + 1]), []).append(argv)
    assert set(configs) == {"ipsec-bench-gcm.toml", "ipsec-bench-gcm-tunnel.toml"}
    # Low-load trials (--load) only where latency can be read: the tunnel.
    assert not [a for a in configs["ipsec-bench-gcm.toml"] if "--load" in a]
    assert [a for a in configs["ipsec-bench-gcm-tunnel.toml"] if "--load" in a]
    assert rj["headline"].startswith("AES-128-GCM encrypt 1420 B: cpu ")


def test_the_cores_table_scales_the_busy_cores_to_200_g_and_puts_esp_bench_beside(fake_gnf, tmp_path):
    esp = tmp_path / "esp.json"
    def op(one, gpu, tile):
        return {"openssl_1_core": {"gbps": one, "mpps": 1}, "openssl_all_cores": {"gbps": one * 16, "mpps": 1},
                "gpu_thread_per_packet": {"gbps": gpu, "mpps": 1}, "gpu_tile_16_per_packet": {"gbps": tile, "mpps": 1}}
    # The GPU column takes the faster shape of each op: the thread's seal, the tile's open.
    esp.write_text(json.dumps({"tool": "gnf-esp-bench", "cpu_threads": 16, "results": [
        dict(algorithm="aes-128-gcm", size="1420", op="seal", **op(50.0, 1500.0, 1200.0)),
        dict(algorithm="aes-128-gcm", size="1420", op="open", **op(40.0, 500.0, 1000.0))]}))
    fake_gnf.set(capacity_pps=3e5, unstamped="ipsec-bench-gcm.toml")
    rc, folder = run_cli(fake_gnf, tmp_path, "ipsec", "--quick", *CPU_GCM, "--esp-json", str(esp))
    assert rc == 0
    md, _ = check_report(str(folder))
    rows = rows_by(tables(md)[CORES], (1, 2, 3))
    encrypt, tunnel = rows[("encrypt", "1420 B", "cpu")], rows[("tunnel", "1420 B", "cpu")]
    for row in (encrypt, tunnel):
        gbps, busy = searched_rate(row["NDR Gbit/s L1"])[0], float(row["driver busy cores"])
        assert abs(float(row["driver busy cores for 200 G"]) - busy * 200 / gbps) <= 0.1 + 0.05 * busy * 200 / gbps
    # Encrypt: the seal; tunnel: a seal and an open per packet (1 / (1/50 + 1/40) Gbit/s on one core).
    assert (encrypt["ESP GPU Gbit/s"], encrypt["CPU library"], encrypt["CPU 1 core Gbit/s"],
            encrypt["CPU 16 cores Gbit/s"], encrypt["CPU cores for 200 G"]) == ("1500.0", "OpenSSL", "50.0", "800.0", "4.0")
    assert (tunnel["ESP GPU Gbit/s"], tunnel["CPU 1 core Gbit/s"], tunnel["CPU cores for 200 G"]) == (
        "600.0", "22.2", "9.0")


def test_the_cores_table_takes_the_faster_cpu_library(fake_gnf, tmp_path):
    esp = tmp_path / "esp.json"
    def op(openssl, ipsec_mb):
        return {"openssl_1_core": {"gbps": openssl, "mpps": 1}, "openssl_all_cores": {"gbps": openssl * 16, "mpps": 1},
                "ipsec_mb_1_core": {"gbps": ipsec_mb, "mpps": 1},
                "ipsec_mb_all_cores": {"gbps": ipsec_mb * 15, "mpps": 1},
                "gpu_thread_per_packet": {"gbps": 1000.0, "mpps": 1}}
    esp.write_text(json.dumps({"tool": "gnf-esp-bench", "cpu_threads": 16, "results": [
        dict(algorithm="aes-128-gcm", size="1420", op="seal", **op(25.0, 100.0))]}))
    fake_gnf.set(capacity_pps=3e5, unstamped="ipsec-bench-gcm.toml")
    rc, folder = run_cli(fake_gnf, tmp_path, "ipsec", "--quick", *CPU_GCM, "--esp-json", str(esp))
    assert rc == 0
    md, _ = check_report(str(folder))
    encrypt = rows_by(tables(md)[CORES], (1, 2, 3))[("encrypt", "1420 B", "cpu")]
    assert (encrypt["CPU library"], encrypt["CPU 1 core Gbit/s"], encrypt["CPU 16 cores Gbit/s"],
            encrypt["CPU cores for 200 G"]) == ("intel-ipsec-mb", "100.0", "1500.0", "2.0")


def test_ipsec_drops_are_noted(fake_gnf, tmp_path):
    fake_gnf.set(capacity_pps=3e5, ipsec_drop=7)
    rc, folder = run_cli(fake_gnf, tmp_path, "ipsec", "--quick", *CPU_GCM, "--variants", "tunnel")
    assert rc == 0
    assert "drop_replayed in " in (folder / "report.md").read_text()


def test_ipsec_options_are_checked_and_defaulted():
    _, quick = cli.resolve(["ipsec", "--quick"])
    assert (quick.paths, quick.ciphers, quick.variants, quick.sizes, quick.speed) == (
        ["cpu", "staged", "bypass"], ["gcm", "cbc"], ["encrypt", "tunnel"], [1420], 200)
    _, full = cli.resolve(["ipsec"])
    assert full.sizes == [64, 512, 1420, "imix"]
    for bad in (["--ciphers", "aes-256-gcm"], ["--variants", "decrypt"]):
        try:
            cli.resolve(["ipsec"] + bad)
        except SystemExit as e:
            assert e.code == 2
        else:
            raise AssertionError(bad)
