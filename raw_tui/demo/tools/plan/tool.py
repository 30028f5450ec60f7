"""The demo's plan tool: puts a mermaid diagram in the `plan` panel."""


def handler(args, ctx):
    note = args.get("note", "drawn by the agent")
    steps = sum(1 for line in args["diagram"].splitlines() if "-->" in line)
    document = {
        "title": "Plan",
        "summary": f"{steps} steps · {note}",
        "context_summary": f"Plan diagram: {args['diagram']}",
        "blocks": [{"id": "diagram", "kind": "mermaid", "source": args["diagram"]},
                   {"id": "note", "kind": "markdown", "text": f"_{note}_"}],
    }
    return {"content": [{"type": "panel", "panel": "plan", "op": "replace", "document": document}]}


def summarize(args, ctx):
    """`plan: 3 steps`: the call's line in the chat."""
    steps = sum(1 for line in args["diagram"].splitlines() if "-->" in line)
    return f"plan: {steps} steps" + (f" · {args['note']}" if args.get("note") else "")
