"""Replies as the vendors send them, not as scripted_server.py writes them: the documented response
objects of OpenAI chat completions and Anthropic Messages verbatim (every field the loop ignores
included), chunked transfer encoding without Content-Length, lower-case vendor headers, the vendors'
error bodies for rate limits and overload. The loop must take them as they are."""
import http.server
import json
import threading

import pytest

from conftest import CORRECT, run_agent, session_files

PRICE = "in=2.5,out=10,cache_read=1.25"


def openai_completion(turn, tool_call=None, text=None):
    message = {"role": "assistant", "content": text, "refusal": None, "annotations": []}
    if tool_call:
        message["tool_calls"] = [{"id": f"call_Vq3{turn}xYz", "type": "function", "function": tool_call}]
    return {
        "id": f"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6Pe{turn}", "object": "chat.completion", "created": 1741570283,
        "model": "gpt-4o-2024-08-06",
        "choices": [{"index": 0, "message": message, "logprobs": None,
                     "finish_reason": "tool_calls" if tool_call else "stop"}],
        "usage": {"prompt_tokens": 1117, "completion_tokens": 46, "total_tokens": 1163,
                  "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
                  "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                                "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}},
        "service_tier": "default", "system_fingerprint": "fp_fc9f1d7035"}


def anthropic_message(turn, tool_input=None, text=None):
    content = []
    if text:
        content.append({"type": "text", "text": text, "citations": None})
    if tool_input:
        content.append({"type": "tool_use", "id": f"toolu_01A09q90qw90lq917835lq9{turn}", "name": "write_file",
                        "input": tool_input})
    return {
        "id": f"msg_013Zva2CMHLNnXjNJJKqJ2E{turn}", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-20250514", "content": content,
        "stop_reason": "tool_use" if tool_input else "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 2095, "output_tokens": 503, "cache_creation_input_tokens": 2051,
                  "cache_read_input_tokens": 2051, "cache_creation": {"ephemeral_5m_input_tokens": 2051,
                                                                      "ephemeral_1h_input_tokens": 0},
                  "server_tool_use": None, "service_tier": "standard"}}


OPENAI_RATE_LIMIT = {"error": {"message": "Rate limit reached for gpt-4o in organization org-abc on tokens per min "
                                          "(TPM): Limit 30000, Used 30000, Requested 1163.",
                               "type": "tokens", "param": None, "code": "rate_limit_exceeded"}}
ANTHROPIC_OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"},
                        "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy"}


class VendorServer:
    """Answers each POST with the next (status, body) in `replies`, chunked, with vendor headers."""

    def __init__(self, api, replies):
        self.api, self.replies, self.requests = api, list(replies), []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive and chunked bodies, as the vendors' front ends

            def log_message(self, *args):
                pass

            def do_POST(self):
                outer.requests.append((self.path, dict(self.headers), json.loads(self.rfile.read(int(self.headers["Content-Length"])))))
                status, body = outer.replies.pop(0) if outer.replies else (400, {"error": "script exhausted"})
                data = json.dumps(body, indent=2).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("transfer-encoding", "chunked")
                self.send_header("x-request-id", "req_7f3c2a")
                self.send_header("openai-processing-ms" if outer.api == "openai" else "anthropic-organization-id", "812")
                if status in (429, 529):
                    self.send_header("retry-after", "0")
                self.end_headers()
                for start in range(0, len(data), 97):  # odd-sized chunks, split mid-token
                    piece = data[start:start + 97]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self.httpd.server_address[1]}" + ("/v1" if api == "openai" else "")

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def vendor():
    started = []

    def make(api, replies):
        started.append(VendorServer(api, replies))
        return started[-1]

    yield make
    for server in started:
        server.close()


def test_openai_replies_as_sent_by_the_vendor(vendor, tmp_path):
    write = {"name": "write_file", "arguments": json.dumps({"path": "kernel.py", "content": CORRECT})}
    server = vendor("openai", [(429, OPENAI_RATE_LIMIT), (200, openai_completion(1, tool_call=write)),
                               (200, openai_completion(2, text="Done: kernel.py passes check."))])
    run_agent(server, "vendor-openai", tmp_path, "--price", PRICE)
    folder, meta, trace = session_files(tmp_path, "vendor-openai")
    assert (folder / "kernel.py").read_text() == CORRECT
    assert meta["stop_reason"] == "final_answer" and meta["turns"] == 2
    # prompt_tokens includes cached_tokens: uncached input = 1117 - 1024 per turn.
    assert meta["tokens"] == {"input": 186, "output": 92, "cache_read": 2048, "cache_write": 0, "total": 2326}
    assert meta["cost_usd"] == pytest.approx((186 * 2.5 + 92 * 10 + 2048 * 1.25) / 1e6)
    assert [r["status"] for r in trace if r["type"] == "retry"] == [429]
    path, headers, body = server.requests[-1]
    assert path == "/v1/chat/completions" and body["messages"][-1]["role"] == "tool"


def test_anthropic_replies_as_sent_by_the_vendor(vendor, tmp_path):
    server = vendor("anthropic", [(529, ANTHROPIC_OVERLOADED),
                                  (200, anthropic_message(1, tool_input={"path": "kernel.py", "content": CORRECT})),
                                  (200, anthropic_message(2, text="kernel.py is written."))])
    run_agent(server, "vendor-anthropic", tmp_path)
    folder, meta, trace = session_files(tmp_path, "vendor-anthropic")
    assert (folder / "kernel.py").read_text() == CORRECT
    assert meta["stop_reason"] == "final_answer" and meta["turns"] == 2
    assert meta["tokens"] == {"input": 4190, "output": 1006, "cache_read": 4102, "cache_write": 4102, "total": 13400}
    assert [r["status"] for r in trace if r["type"] == "retry"] == [529]
    path, headers, body = server.requests[-1]
    assert path == "/v1/messages"
    assert {k.lower() for k in headers} >= {"anthropic-version", "content-type"}
    # The tool result goes back as a tool_result block answering the vendor's tool_use id.
    blocks = body["messages"][-1]["content"]
    assert any(b.get("type") == "tool_result" and b.get("tool_use_id") == "toolu_01A09q90qw90lq917835lq91" for b in blocks)
