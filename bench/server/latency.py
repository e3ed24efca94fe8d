"""How long an editor waits for gpulint's findings: from a didChange to the publishDiagnostics
that answers it, on a 1,000-line training script, against a one-shot `gpulint check` of the same
text through standard input, taken in turns.

    python3 bench/server/latency.py BUILD/gpulint [EDITS (200)] [WORKSPACE]

With WORKSPACE, the script is edited inside a copy of that directory, whose Python files the
server reads for cross-module context at every lint.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def script():
    """examples/train.py with model blocks and evaluation helpers added up to 1,000 lines."""
    lines = open(os.path.join(ROOT, "examples", "train.py")).read().splitlines()
    main_at = lines.index("def main():")
    extra = []
    i = 0
    while len(lines) + len(extra) < 1000:
        extra += [
            f"class Block{i}(nn.Module):",
            f"    def __init__(self, width={64 + i}):",
            "        super().__init__()",
            "        self.norm = nn.LayerNorm(width)",
            "        self.proj = nn.Linear(width, width)",
            "",
            "    def forward(self, x):",
            "        return x + F.gelu(self.proj(self.norm(x)))",
            "",
            "",
            f"def evaluate_{i}(model, loader, device):",
            "    model.eval()",
            "    correct = 0",
            "    with torch.no_grad():",
            "        for images, labels in loader:",
            "            images = images.to(device)",
            "            correct += (model(images).argmax(1).cpu() == labels).sum().item()",
            "    return correct / len(loader.dataset)",
            "",
            "",
        ]
        i += 1
    text = lines[:main_at] + extra + lines[main_at:]
    return "\n".join(text[:1000]) + "\n"


class Server:
    def __init__(self, gpulint, cwd):
        self.p = subprocess.Popen([gpulint, "server"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, cwd=cwd)

    def send(self, message):
        body = json.dumps(message).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def receive(self):
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            header += self.p.stdout.read(1)
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        return json.loads(self.p.stdout.read(length))

    def until_published(self):
        while True:
            m = self.receive()
            if m.get("method") == "textDocument/publishDiagnostics":
                return m


def main():
    gpulint = os.path.abspath(sys.argv[1])
    edits = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    workspace = sys.argv[3] if len(sys.argv) > 3 else None
    text = script()
    with tempfile.TemporaryDirectory() as tmp:
        if workspace:
            shutil.copytree(workspace, os.path.join(tmp, "workspace"), symlinks=True)
            tmp = os.path.join(tmp, "workspace")
        path = os.path.join(tmp, "train.py")
        open(path, "w").write(text)
        uri = "file://" + path
        server = Server(gpulint, tmp)
        server.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                     "params": {"rootUri": "file://" + tmp, "capabilities": {}}})
        server.receive()
        server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                     "params": {"textDocument": {"uri": uri, "languageId": "python",
                                                 "version": 1, "text": text}}})
        found = len(server.until_published()["params"]["diagnostics"])
        served, oneshot = [], []
        line = text.count("\n") - 3  # inside main's loop
        for i in range(edits):
            # A keystroke: one character typed at the end of a line, then taken back.
            ch = "x" if i % 2 == 0 else ""
            start = time.perf_counter()
            server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                         "params": {"textDocument": {"uri": uri, "version": i + 2},
                                    "contentChanges": [{"range": {
                                        "start": {"line": 0, "character": 12},
                                        "end": {"line": 0, "character": 12 if ch else 13}},
                                        "text": ch}]}})
            server.until_published()
            served.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            subprocess.run([gpulint, "check", "--no-cache", "--stdin-filename", "train.py", "-"],
                           input=text.encode(), cwd=tmp, capture_output=True)
            oneshot.append((time.perf_counter() - start) * 1000)
        server.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        server.receive()
        server.send({"jsonrpc": "2.0", "method": "exit"})
        server.p.wait()

    def q(xs, p):
        return sorted(xs)[int(p * (len(xs) - 1))]

    print(f"{text.count(chr(10))}-line script, {found} findings, {edits} edits in turns")
    print(f"server   didChange -> publishDiagnostics: median {statistics.median(served):.2f} ms, "
          f"p90 {q(served, 0.9):.2f} ms")
    print(f"one-shot gpulint check (stdin):           median {statistics.median(oneshot):.2f} ms, "
          f"p90 {q(oneshot, 0.9):.2f} ms")


if __name__ == "__main__":
    main()
