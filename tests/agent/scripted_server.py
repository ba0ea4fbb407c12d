"""A scripted model endpoint on loopback: speaks OpenAI chat completions or Anthropic Messages,
answers each request with the next step of a script, and records every request it received.

A step is a dict:
  {"status": 500}                          an HTTP error (with Retry-After: 0)
  {"calls": [("bash", '{"command": "ls"}')]}  a turn with tool calls (arguments as raw JSON text)
  {"text": "done"}                          a final answer
Every answered turn reports usage {"input": 100, "output": 10, "cache_read": 50, "cache_write": 5}.
"""
import http.server
import json
import threading

USAGE = {"input": 100, "output": 10, "cache_read": 50, "cache_write": 5}


def openai_reply(step, turn):
    message = {"role": "assistant", "content": step.get("text")}
    if step.get("calls"):
        message["tool_calls"] = [
            {"id": f"call_{turn}_{idx}", "type": "function", "function": {"name": name, "arguments": args}}
            for idx, (name, args) in enumerate(step["calls"])]
    return {"id": f"chatcmpl-{turn}", "object": "chat.completion", "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if step.get("calls") else "stop"}],
            "usage": {"prompt_tokens": USAGE["input"] + USAGE["cache_read"], "completion_tokens": USAGE["output"],
                      "total_tokens": USAGE["input"] + USAGE["cache_read"] + USAGE["output"],
                      "prompt_tokens_details": {"cached_tokens": USAGE["cache_read"]}}}


def anthropic_reply(step, turn):
    content = [{"type": "text", "text": step["text"]}] if step.get("text") else []
    for idx, (name, args) in enumerate(step.get("calls", [])):
        try:
            parsed = json.loads(args)
        except ValueError:
            parsed = {"raw": args}
        content.append({"type": "tool_use", "id": f"toolu_{turn}_{idx}", "name": name, "input": parsed})
    return {"id": f"msg_{turn}", "type": "message", "role": "assistant", "model": "scripted", "content": content,
            "stop_reason": "tool_use" if step.get("calls") else "end_turn",
            "usage": {"input_tokens": USAGE["input"], "output_tokens": USAGE["output"],
                      "cache_read_input_tokens": USAGE["cache_read"], "cache_creation_input_tokens": USAGE["cache_write"]}}


class ScriptedServer:
    def __init__(self, api, script):
        self.api = api
        self.script = list(script)
        self.requests = []  # parsed JSON bodies, in order, errors included
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, reply = outer.answer(self.path, body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status >= 500 or status == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(data)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self):
        base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        return base + "/v1" if self.api == "openai" else base

    def answer(self, path, body):
        expected = "/v1/chat/completions" if self.api == "openai" else "/v1/messages"
        with self.lock:
            self.requests.append(body)
            if path != expected:
                return 404, {"error": f"no route {path}"}
            if not self.script:
                return 400, {"error": "script exhausted"}
            step = self.script.pop(0)
            turn = len(self.requests)
        if "status" in step:
            return step["status"], {"error": {"type": "server_error", "message": "scripted failure"}}
        return 200, (openai_reply if self.api == "openai" else anthropic_reply)(step, turn)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
