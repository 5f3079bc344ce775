"""peer-kills' counts and tables: per task, the mutants keval counts, keval's kills and each peer's;
per peer, the same on the mutants it judged, with the kills only one side made."""
from .classify import EQUIVALENT, KILLED
from .peer_pairs import PEERS

NO_PAIR, NOT_RUN, KEVAL_GOLDEN, PEER_GOLDEN, COUNTED = (
    "no pair", "not run", "keval fails the golden", "the peer fails the golden", "counted")


def peer_cell(task, kind: str, pair, peers: dict, goldens: dict, verdicts: dict) -> dict:
    if pair is None:
        return {"status": NO_PAIR}
    if kind not in peers:
        return {"status": NOT_RUN}
    if task.golden_verdict != "pass":
        return {"status": KEVAL_GOLDEN}
    golden = goldens[kind][task.task]
    if not golden["passed"]:
        return {"status": PEER_GOLDEN, "error": golden["error"]}
    counted = [m.id for m in task.mutants if m.counted]
    judged = [verdicts[kind][i] for i in counted if i in verdicts[kind]]
    return {"status": COUNTED, "judged": len(judged), "killed": sum(not v["passed"] for v in judged),
            "not_judged": len(counted) - len(judged)}


def tally(tasks: dict, pairs: list, peers: dict, goldens: dict, verdicts: dict) -> dict:
    by = {(p.task, p.peer): p for p in pairs}
    rows, mutants = {}, []
    for name in sorted({p.task for p in pairs if p.peer in peers}):
        task = tasks[name]
        counted = [m for m in task.mutants if m.counted] if task.golden_verdict == "pass" else []
        rows[name] = {"golden_verdict": task.golden_verdict, "mutants": len(counted),
                      "keval_killed": sum(m.fate == KILLED for m in counted),
                      "equivalent": sum(m.fate == EQUIVALENT for m in task.mutants),
                      "peers": {kind: peer_cell(task, kind, by.get((name, kind)), peers, goldens, verdicts)
                                for kind in PEERS}}
        for m in counted:
            mutants.append({"id": m.id, "task": name, "operator": m.operator, "keval_fate": m.fate,
                            "keval_verdict": m.verdict,
                            "peers": {kind: {"killed": not v[m.id]["passed"], "error": v[m.id]["error"]}
                                      for kind, v in verdicts.items() if m.id in v}})
    return {"tasks": rows, "per_peer": per_peer(mutants), "mutants": mutants}


def per_peer(mutants: list) -> dict:
    """Per peer, on the mutants it judged: keval's kills, its own, and those only one side made."""
    out = {}
    for kind in PEERS:
        mine = [m for m in mutants if kind in m["peers"]]
        if not mine:
            continue
        keval = [m["keval_fate"] == KILLED for m in mine]
        peer = [m["peers"][kind]["killed"] for m in mine]
        out[kind] = {"tasks": len({m["task"] for m in mine}), "mutants": len(mine), "keval_killed": sum(keval),
                     "peer_killed": sum(peer), "keval_only": sum(k and not p for k, p in zip(keval, peer)),
                     "peer_only": sum(p and not k for k, p in zip(keval, peer))}
    return out


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def cell_text(cell: dict, mutants: int) -> str:
    status = cell["status"]
    if status == NO_PAIR:
        return "—"
    if status != COUNTED:
        return status
    return str(cell["killed"]) if cell["judged"] == mutants else f"{cell['killed']} of {cell['judged']}"


def render_markdown(report: dict) -> str:
    labels = [f"{label} criterion kills" for label in PEERS.values()]
    lines = ["| task | mutants | keval kills | " + " | ".join(labels) + " |",
             "|---|---:|---:|" + "---:|" * len(labels)]
    total = {"mutants": 0, "keval": 0, **{k: [0, 0] for k in PEERS}}
    for name, row in report["tasks"].items():
        cells = [cell_text(row["peers"][k], row["mutants"]) for k in PEERS]
        lines.append(f"| {name} | {row['mutants']} | {row['keval_killed']} | " + " | ".join(cells) + " |")
        total["mutants"] += row["mutants"]
        total["keval"] += row["keval_killed"]
        for kind in PEERS:
            cell = row["peers"][kind]
            if cell["status"] == COUNTED:
                total[kind][0] += cell["killed"]
                total[kind][1] += cell["judged"]
    totals = [f"**{k} of {n} ({percent(k, n)})**" if n else "—" for k, n in (total[kind] for kind in PEERS)]
    lines.append(f"| **all** | {total['mutants']} | **{total['keval']} ({percent(total['keval'], total['mutants'])})** | "
                 + " | ".join(totals) + " |")
    lines += ["", "| peer | tasks | mutants | keval kills | its kills | keval only | the peer only |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for kind, p in report["per_peer"].items():
        lines.append(f"| {PEERS[kind]} | {p['tasks']} | {p['mutants']} | {p['keval_killed']} "
                     f"({percent(p['keval_killed'], p['mutants'])}) | {p['peer_killed']} "
                     f"({percent(p['peer_killed'], p['mutants'])}) | {p['keval_only']} | {p['peer_only']} |")
    return "\n".join(lines) + "\n"
