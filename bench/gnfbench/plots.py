"""The report's figures (matplotlib, Agg: no display needed). Each function takes plain data,
writes one PNG and returns its file name (relative to the report folder)."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import matplotlib.ticker  # noqa: E402

from . import rates, stats  # noqa: E402

DPI = 110


def _save(fig, folder, name, rect=None):
    fig.tight_layout(rect=rect)  # rect: the part the axes may fill (room for a figure legend)
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


def ndr_vs_rings(folder, name, panels, speed_gbps, title, xlabel="rings (rx/tx queue pairs per port)"):
    """panels: {size: {label: [(rings, Spread of pps), ...]}}: one panel per frame size, NDR against
    the ring count (or another count that doubles, named by `xlabel`), one line per label, the size's
    line rate dashed; bars span min..max."""
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels) + 1, 4.2), squeeze=False)
    for ax, (size, series) in zip(axes[0], panels.items()):
        rings = sorted({r for points in series.values() for r, _ in points})
        ax.axhline(rates.line_rate_pps(speed_gbps, size) / 1e6, color="k", ls="--", lw=1,
                   label="line rate %g Gbit/s (L1)" % speed_gbps)
        for label, points in series.items():
            measured = [(r, sp) for r, sp in points if sp.n]
            if not measured:
                continue
            # Ring counts as categories: they double, so equal steps read as log2.
            x = [rings.index(r) for r, _ in measured]
            err = [[(sp.median - sp.min) / 1e6 for _, sp in measured],
                   [(sp.max - sp.median) / 1e6 for _, sp in measured]]
            ax.errorbar(x, [sp.median / 1e6 for _, sp in measured], yerr=err, marker="o", capsize=3, label=label)
        ax.set_xticks(range(len(rings)))
        ax.set_xticklabels([str(r) for r in rings])
        ax.set_xlabel(xlabel)
        ax.set_ylabel("NDR Mpps")
        ax.set_ylim(bottom=0)
        ax.set_title(rates.size_label(size))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title)
    return _save(fig, folder, name)


def latency_bars(folder, name, panels, title, goal_us=None):
    """panels: {panel title: [(group label, {series label: (p50 ns, p99 ns)}, floor p50 ns or None)]}.

    Per group, one bar per series: p99 pale, p50 solid in front of it (p99 >= p50); the group's
    calibration floor p50 as a dashed grey line across it; goal_us: {panel title: µs} dotted.
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(max(5.0, 3.8 * len(panels) + 1), 5), squeeze=False)
    series = []
    for groups in panels.values():
        for _, values, _ in groups:
            series += [s for s in values if s not in series]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    width = 0.8 / max(1, len(series))
    handles = {}
    drawn_us = [v / 1e3 for groups in panels.values() for _, values, floor in groups
                for v in [x for pair in values.values() for x in pair] + [floor] if v]
    drawn_us += list((goal_us or {}).values())
    for ax, (panel, groups) in zip(axes[0], panels.items()):
        for g, (_, values, floor) in enumerate(groups):
            for s, label in enumerate(series):
                p50, p99 = values.get(label, (None, None))
                if p50 is None:
                    continue
                x = g - 0.4 + width * (s + 0.5)
                color = colors[s % len(colors)]
                handles[label + " p99"] = ax.bar(x, p99 / 1e3, width, color=color, alpha=0.35)
                handles[label + " p50"] = ax.bar(x, p50 / 1e3, width, color=color)
            if floor is not None:
                handles["calibration floor p50"] = ax.hlines(floor / 1e3, g - 0.45, g + 0.45, colors="grey",
                                                             linestyles="--")
        if goal_us and panel in goal_us:
            handles["goal p50 ≤ %g µs" % goal_us[panel]] = ax.axhline(goal_us[panel], color="red", ls=":", lw=1)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([group for group, _, _ in groups], fontsize=8)
        # Log: paths differ by orders of magnitude. Bars have no lower end on a log axis, so the
        # range is set here, the same in every panel; µs as plain numbers.
        ax.set_yscale("log")
        if drawn_us:
            ax.set_ylim(min(drawn_us) / 2, max(drawn_us) * 2)
        ax.yaxis.set_major_locator(matplotlib.ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_ylabel("latency at low load (µs)")
        ax.set_title(panel)
        ax.grid(True, axis="y", which="both", alpha=0.3)
    if handles:
        fig.legend(list(handles.values()), list(handles.keys()), fontsize=7, ncol=4, loc="lower center")
    fig.suptitle(title)
    return _save(fig, folder, name, rect=(0, 0.12, 1, 1))


def grouped_bars(folder, name, panels, ylabel, title):
    """panels: {panel title: {group label: {series label: value}}}: per group, one bar per series of
    its panel, with the panel's legend below it (log scale: CPU and GPU rates differ by orders of
    magnitude); a series missing in a group leaves a gap."""
    fig, axes = plt.subplots(1, len(panels), figsize=(max(6.0, 5.5 * len(panels)), 6.0), squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (panel, groups) in zip(axes[0], panels.items()):
        series = []
        for values in groups.values():
            series += [s for s in values if s not in series]
        width = 0.8 / max(1, len(series))
        for s, label in enumerate(series):
            xs = [g - 0.4 + width * (s + 0.5) for g, values in enumerate(groups.values()) if values.get(label)]
            ys = [values[label] for values in groups.values() if values.get(label)]
            ax.bar(xs, ys, width, color=colors[s % len(colors)], label=label)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(list(groups), fontsize=8)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: "%g" % v))
        ax.tick_params(axis="y", which="minor", labelsize=6)
        ax.set_ylabel(ylabel)
        ax.set_title(panel, fontsize=9)
        ax.grid(True, axis="y", which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.08))
    fig.suptitle(title)
    return _save(fig, folder, name, rect=(0, 0.22, 1, 1))
