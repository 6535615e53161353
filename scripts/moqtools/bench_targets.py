"""The idle-export targets of issue 13, judged from measured figures: a gated idle poll
costs at most 30 instructions per track at 16 tracks and at most 60 at one track, and
the gated active path is no slower than the base revision's. scripts/bench writes them
under its table, and scripts/bench --base (bench_pair.py) under its own.
"""

PER_TRACK_AT_16 = 30.0
AT_ONE_TRACK = 60.0


def verdict(met):
    return "met" if met else "missed"


def target_lines(head, base=None):
    """Markdown list lines. head, base: {(case, tracks, gates): instructions per idle poll
    or active round}, as bench_pair.idle_runs reads them; base None when there is no base
    revision (or it has no idle_export)."""
    lines = []
    at_16 = head.get(("idle", 16, "on"))
    if at_16 is None:
        lines.append(f"- Gated idle poll at 16 tracks, at most {PER_TRACK_AT_16:.0f} instructions per track: "
                     "not measured.")
    else:
        per_track = at_16 / 16
        lines.append(f"- Gated idle poll at 16 tracks, at most {PER_TRACK_AT_16:.0f} instructions per track: "
                     f"{per_track:,.1f} ({verdict(per_track <= PER_TRACK_AT_16)}).")
    at_1 = head.get(("idle", 1, "on"))
    if at_1 is None:
        lines.append(f"- Gated idle poll at one track, at most {AT_ONE_TRACK:.0f} instructions: not measured.")
    else:
        lines.append(f"- Gated idle poll at one track, at most {AT_ONE_TRACK:.0f} instructions: {at_1:,.1f} "
                     f"({verdict(at_1 <= AT_ONE_TRACK)}).")
    active = sorted(tracks for which, tracks, gates in head if which == "active" and gates == "on")
    if base is None:
        lines.append("- Gated active round no slower than before: not judged by a run of one revision "
                     "(`scripts/bench --base REV` pairs it with REV's).")
    elif not active or any(base.get(("active", tracks, "on")) is None for tracks in active):
        lines.append("- Gated active round no slower than the base revision's: not measured in both.")
    else:
        pairs = [(tracks, base[("active", tracks, "on")], head[("active", tracks, "on")]) for tracks in active]
        figures = "; ".join(f"{tracks} track{'s' if tracks != 1 else ''} {now:,.1f} against {before:,.1f}"
                            for tracks, before, now in pairs)
        lines.append(f"- Gated active round no slower than the base revision's: {figures} "
                     f"({verdict(all(now <= before for _, before, now in pairs))}).")
    return lines
