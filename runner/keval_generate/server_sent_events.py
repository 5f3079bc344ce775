"""Server-sent events (text/event-stream, the streaming answer of both chat APIs): each event's
name and its data parsed as JSON; `data: [DONE]` (OpenAI's end mark) ends the stream."""
import json


def events(lines):
    """(event name or "", data as JSON) of every event in an iterable of byte lines."""
    name, data = "", []
    for raw in lines:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line == "":
            if data:
                text = "\n".join(data)
                if text == "[DONE]":
                    return
                yield name, json.loads(text)
            name, data = "", []
        elif line.startswith(":"):
            continue  # a comment: servers send them to keep the connection alive
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])
    if data and "\n".join(data) != "[DONE]":
        yield name, json.loads("\n".join(data))
