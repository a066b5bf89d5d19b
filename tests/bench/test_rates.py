"""Line-rate arithmetic: frame sizes with FCS, 20 B of preamble and gap per frame on the wire."""
import pytest

from gnfbench import rates


def test_64_byte_frames_fill_10_gbe_at_14_88_mpps():
    # 10e9 bit/s / (8 * (64 + 20) B)
    assert rates.line_rate_pps(10, 64) == pytest.approx(14_880_952.38, abs=0.01)


def test_1518_byte_frames_fill_10_gbe_at_812_744_pps():
    assert rates.line_rate_pps(10, 1518) == pytest.approx(10e9 / (8 * 1538))
    assert rates.line_rate_pps(10, 1518) == pytest.approx(812_743.8, abs=0.1)


def test_imix_is_seven_four_one_of_64_594_1518():
    # (7 * 64 + 4 * 594 + 1 * 1518) / 12 = 4342 / 12 B per frame; + 20 B each on the wire.
    assert rates.mean_frame_bytes("imix") == pytest.approx(4342 / 12)
    assert rates.line_rate_pps(100, "imix") == pytest.approx(100e9 * 12 / (8 * (4342 + 12 * 20)))


def test_layer_1_counts_preamble_and_gap_and_layer_2_does_not():
    line = rates.line_rate_pps(10, 64)
    assert rates.gbps_l1(line, 64) == pytest.approx(10.0)
    assert rates.gbps_l2(line, 64) == pytest.approx(10.0 * 64 / 84)


def test_sizes_parse_with_imix_and_all():
    assert rates.parse_sizes("64, 1518,IMIX") == [64, 1518, "imix"]
    assert rates.parse_sizes("all") == [64, 128, 256, 512, 1024, 1280, 1518, "imix"]


@pytest.mark.parametrize("text", ["63", "9019", "sixty"])
def test_sizes_outside_ethernet_or_not_numbers_are_refused(text):
    with pytest.raises(ValueError):
        rates.parse_sizes(text)
