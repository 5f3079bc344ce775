"""keval generate --turns N: every sample answers N times, each turn after the first with the
judge's word on its last answer (refine_feedback). Between turns the turn's answers are judged
by `keval run` itself (the same binary, so the same judge, pool and result cache), in
JUDGE_OUT/turn-<t>/. Each answer is stored as it arrives (sample_store), and each turn's judging
keeps its own keval.db, so a rerun after a kill asks only for turns not yet stored and judges
only what was not judged."""
import json
import os
import sys
import time

from .samples import request_all, submission_line, usage_totals, write_jsonl
from .prompt_builder import Prompt, messages_hash
from .refine_feedback import TEMPLATE_ID, feedback_message
from .refine_judge import judge
from .refine_scores import score_table, turn_scores


def turn_id(task: str, model: str, sample: int, turn: int) -> str:
    return f"{task}@{model}#{sample}/t{turn}"


def next_prompt(prompt: Prompt, answer: str, result: dict, base_template: str) -> Prompt:
    """The conversation so far, the model's answer, and the judge's feedback on it."""
    messages = prompt.messages + [{"role": "assistant", "content": answer}, feedback_message(result)]
    return Prompt(messages=messages, template=f"{base_template}+{TEMPLATE_ID}", hash=messages_hash(messages),
                  retrieved=prompt.retrieved)


def record(row: dict, turn: int, line: dict, result: dict) -> dict:
    """One answer of one turn in the output JSONL: a submission (keval run reads it) and its
    verdict and speedup."""
    generation = dict(line["generation"], turn=turn)
    return {"task": row["task"], "code": row["response"], "id": line["id"], "generation": generation,
            "judge": {"verdict": result.get("verdict"), "speedup": result.get("speedup"),
                      "speedup_ci": result.get("speedup_ci"), "reasons": (result.get("reasons") or [])[:1]}}


def run_turns(args, names: list, prompts: dict, client, store, conversation: dict, records: list,
              outcomes: dict) -> tuple:
    """Every turn asked and judged; `records` and `outcomes` grow as each turn is judged."""
    requested, all_rows = 0, []
    for turn in range(1, args.turns + 1):
        plan = [(name, i, conversation[name, i]) for name in names for i in range(args.samples)]
        rows, asked = request_all(args, client, store, plan,
                                  f"turn {turn} of {args.turns}: {len(plan)} samples ({len(names)} tasks x {args.samples})")
        requested += asked
        all_rows += rows
        lines = []
        for row in rows:
            line = submission_line(row)
            line["id"] = turn_id(row["task"], args.model, row["sample"], turn)
            line["generation"]["turn"] = turn
            lines.append(line)
        results = judge(args, turn, lines)
        for row, line in zip(rows, lines):
            result = results[line["id"]]
            records.append(record(row, turn, line, result))
            outcomes[row["task"], row["sample"], turn] = {"verdict": result.get("verdict"),
                                                          "speedup": result.get("speedup")}
            if turn < args.turns:
                base = prompts[row["task"]].template
                conversation[row["task"], row["sample"]] = next_prompt(conversation[row["task"], row["sample"]],
                                                                       row["response"], result, base)
    return requested, all_rows


def refine(args, tasks: list, prompts: dict, client, store, started: float) -> dict:
    names = [t.name for t in tasks]
    conversation = {(name, i): prompts[name] for name in names for i in range(args.samples)}
    records, outcomes = [], {}
    try:
        requested, all_rows = run_turns(args, names, prompts, client, store, conversation, records, outcomes)
    except KeyboardInterrupt:
        write_jsonl(args.out, records)
        print(f"keval generate: stopped; the {len(records)} answers of judged turns written to {args.out}",
              file=sys.stderr, flush=True)
        raise
    store.close()
    write_jsonl(args.out, records)
    timed = "--no-timing" not in (args.judge_args or [])
    scores = turn_scores(outcomes, names, args.samples, args.turns, timed)
    print(score_table(scores), file=sys.stderr, flush=True)
    summary = {"turns": args.turns, "samples": args.samples, "tasks": names, "model": args.model,
               "feedback_template": TEMPLATE_ID, "timed": timed, "per_turn": scores}
    summary_path = os.path.join(args.judge_out, "summary.json")
    with open(summary_path + ".partial", "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
    os.replace(summary_path + ".partial", summary_path)
    return {"out": args.out, "store": args.store, "judge_out": args.judge_out, "summary": summary_path,
            "samples": len(names) * args.samples, "turns": args.turns, "requested": requested,
            **usage_totals(all_rows), "wall_s": round(time.monotonic() - started, 3), "per_turn": scores}
