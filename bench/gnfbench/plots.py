"""The report's figures (matplotlib, Agg: no display needed). Each function takes plain data,
writes one PNG and returns its file name (relative to the report folder)."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from . import rates, stats  # noqa: E402

DPI = 110


def _save(fig, folder, name):
    fig.tight_layout()
    fig.savefig(os.path.join(folder, name), dpi=DPI)
    plt.close(fig)
    return name


def throughput_vs_size(folder, name, series, speed_gbps, title):
    """series: {label: [(size, Spread of pps), ...]} -> Mpps per frame size with the line-rate curve.

    IMIX is drawn at its mean frame size with its own marker; error bars span min..max over
    repetitions.
    """
    fig, ax = plt.subplots(figsize=(7, 4.5))
    sizes = [s for points in series.values() for s, _ in points]
    numeric = [rates.mean_frame_bytes(s) for s in sizes] or [64, 1518]
    lo, hi = min(numeric + [64]), max(numeric + [1518])
    xs = [lo + (hi - lo) * i / 200 for i in range(201)]
    ax.plot(xs, [rates.line_rate_pps(speed_gbps, x) / 1e6 for x in xs], "k--", lw=1,
            label="line rate %g Gbit/s (L1)" % speed_gbps)
    for label, points in series.items():
        fixed = [(s, sp) for s, sp in points if s != rates.IMIX_LABEL and sp.n]
        if fixed:
            x = [s for s, _ in fixed]
            y = [sp.median / 1e6 for _, sp in fixed]
            err = [[(sp.median - sp.min) / 1e6 for _, sp in fixed], [(sp.max - sp.median) / 1e6 for _, sp in fixed]]
            line = ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=label)
            color = line[0].get_color()
        else:
            color = None
        for s, sp in points:
            if s == rates.IMIX_LABEL and sp.n:
                ax.plot([rates.mean_frame_bytes(s)], [sp.median / 1e6], marker="*", ms=12, ls="none", color=color,
                        label="%s IMIX (at its mean size)" % label)
    ax.set_xlabel("frame size (bytes, with FCS)")
    ax.set_ylabel("forwarded Mpps")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, folder, name)


def loss_vs_offered(folder, name, series, title):
    """series: {label: [(offered load % of line rate, loss ratio), ...]} (every trial of a search)."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, points in series.items():
        points = sorted(points)
        ax.plot([p for p, _ in points], [max(l, 1e-9) * 100 for _, l in points], marker="o", ms=3, label=label)
    ax.set_xlabel("offered load (% of line rate)")
    ax.set_ylabel("loss (%, 1e-7 drawn for zero)")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, folder, name)


def latency_cdf(folder, name, series, title, floor=None):
    """series: {label: histogram}; floor: the calibration's histogram, drawn dashed grey."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    curves = list(series.items()) + ([("calibration floor", floor)] if floor else [])
    for label, histogram in curves:
        if not histogram:
            continue
        xs, ys = stats.cdf(histogram)
        style = dict(color="grey", ls="--") if label == "calibration floor" else {}
        ax.step([x / 1e3 for x in xs], ys, where="post", label=label, **style)
    ax.set_xscale("log")
    ax.set_xlabel("latency (µs)")
    ax.set_ylabel("fraction of frames ≤ latency")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, folder, name)


def latency_over_time(folder, name, series, title):
    """series: {label: result.per_second list}: p50, p99 and max per send second, and loss."""
    fig, (lat, loss) = plt.subplots(2, 1, figsize=(7, 6), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    for label, seconds in series.items():
        t = [s["t"] for s in seconds]
        line, = lat.plot(t, [s["latency_p50"] / 1e3 for s in seconds], marker="o", ms=3, label=label + " p50")
        lat.plot(t, [s["latency_p99"] / 1e3 for s in seconds], ls="--", color=line.get_color(), label=label + " p99")
        lat.plot(t, [s["latency_max"] / 1e3 for s in seconds], ls=":", color=line.get_color(), label=label + " max")
        loss.plot(t, [100 * s["lost"] / s["sent"] if s["sent"] else 0 for s in seconds], marker="o", ms=3,
                  color=line.get_color(), label=label)
    lat.set_yscale("log")
    lat.set_ylabel("latency (µs)")
    lat.set_title(title)
    lat.grid(True, which="both", alpha=0.3)
    lat.legend(fontsize=7, ncol=2)
    loss.set_xlabel("send second of the measured window")
    loss.set_ylabel("loss (%)")
    loss.grid(True, alpha=0.3)
    return _save(fig, folder, name)


def box_over_repetitions(folder, name, groups, ylabel, title):
    """groups: {label: [value per repetition]}: one box per label (median, quartiles, whiskers)."""
    fig, ax = plt.subplots(figsize=(max(5, 0.9 * len(groups) + 2), 4.5))
    labels = [l for l, v in groups.items() if v]
    ax.boxplot([groups[l] for l in labels], showmeans=False)
    ax.set_xticks(range(1, len(labels) + 1))
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, axis="y", alpha=0.3)
    return _save(fig, folder, name)
