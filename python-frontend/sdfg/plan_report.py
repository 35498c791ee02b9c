"""The checkpoint plan of a gradient (`Gradient.checkpoint`, from the
compiler's `sdfg.checkpoint` summary) as text, for `report=True`."""

from typing import Any, Dict, List, Optional

MiB = 2.0 ** 20


def _bytes(n: int) -> str:
    if n >= 2 ** 20:
        return f"{n / MiB:.1f} MiB"
    if n >= 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n} B"


def format_plan(info: Optional[Dict[str, Any]], name: str = "") -> str:
    """Per loop: trip count, schedule, snapshots, iterations run again;
    the arrays recomputed and stored; the predicted peak against the
    limit and against storing everything."""
    if not info:
        return f"{name}: no checkpoint plan (no mem=, strategy= or " \
               f"checkpoints=)"
    lines: List[str] = [f"checkpoint plan of {name or 'the gradient'} "
                        f"({info.get('strategy', '?')}):"]
    for loop in info.get("loops", []):
        trips = f"up to {loop['trips']} iterations (while_capacity)" \
            if loop.get("while") else "trip count from the call's sizes" \
            if loop.get("size_trips") else "trip count from data" \
            if loop.get("data_trips") else f"{loop['trips']} iterations"
        head = f"  loop {loop['name']!r}: {trips}, "
        if "reason" in loop:
            lines.append(head + f"every iteration stored (cannot "
                         f"checkpoint: {loop['reason']})")
        elif not loop["segments"]:
            lines.append(head + "every iteration stored")
        elif loop.get("schedule") == "binomial":
            lines.append(head + f"binomial, {loop['snapshots'][0]} "
                         f"snapshots of {_bytes(loop['snapshot_bytes'])}, "
                         f"{loop['recomputed_iterations']} iterations "
                         f"run again" + (
                             " (if it ran data_loop_capacity iterations)"
                             if loop.get("data_trips") else ""))
        else:
            segs = " then ".join(map(str, loop["segments"]))
            snaps = " + ".join(map(str, loop["snapshots"]))
            lines.append(head + f"segments of {segs}, {snaps} snapshots "
                         f"of {_bytes(loop['snapshot_bytes'])}, "
                         f"{loop['recomputed_iterations']} iterations "
                         f"run again")
    for key, verb in (("recompute", "recomputed"), ("store", "stored")):
        if info.get(key):
            lines.append(f"  {verb}: {', '.join(info[key])}")
    peak = f"  peak {_bytes(info['peak_bytes'])}"
    if "peak_formula" in info:
        # How the peak grows with the sizes (extents NAME.AXIS).
        peak += f" = {info['peak_formula']} B"
    peak += f" (storing everything: {_bytes(info['store_all_peak_bytes'])}"
    if "limit_bytes" in info:
        peak += f"; limit {_bytes(info['limit_bytes'])}"
    lines.append(peak + ")")
    return "\n".join(lines)
