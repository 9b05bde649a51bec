#!/usr/bin/env python3
"""Asks clangd, over LSP, to complete a partly typed call to a generated
function, and for the signature help inside the call's parentheses.

Usage: clangd_complete.py [--absent] CLANGD COMPILE_COMMANDS_DIR SOURCE FUNCTION

SOURCE includes <fluxion/fluxion.hpp> and calls FUNCTION, a generated
function (energy_grad). The script opens SOURCE with that call cut to the
name of the differentiated function ("energy"), completes there, then puts
the file's own text back and asks for the signature help just after
"energy_grad(". It fails unless clangd offers FUNCTION with a parameter list
that names an adjoint parameter (d_...), and the signature help shows one.
With --absent (the check of the check) it fails if clangd offers FUNCTION or
its signature, or completes nothing at all there.
"""
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

TIMEOUT = 90  # seconds for each answer: clangd on a busy 2-core machine is slow
ADJOINT = re.compile(r"\(.*\bd_\w+.*\)")  # a parameter list with d_...


def fail(message):
    print(f"clangd_complete: FAILED: {message}", flush=True)
    sys.exit(1)


class Clangd:
    def __init__(self, clangd, compile_commands_dir):
        self.proc = subprocess.Popen(
            [clangd, f"--compile-commands-dir={compile_commands_dir}",
             "--background-index=false", "--log=error"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.messages = queue.Queue()
        self.last_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):  # Content-Length framed messages; None when clangd exits
        while True:
            length = None
            while (line := self.proc.stdout.readline()).strip():
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if not line or length is None:
                self.messages.put(None)
                return
            self.messages.put(json.loads(self.proc.stdout.read(length)))

    def write(self, message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.write({"method": method, "params": params})

    def wait(self, what, accept):
        """The first message that accept() takes; fails after TIMEOUT."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                message = self.messages.get(
                    timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                fail(f"no {what} from clangd in {TIMEOUT} s")
            if message is None:
                fail(f"clangd exited (status {self.proc.wait()}) before {what}")
            if "id" in message and "method" in message:  # a request to us
                self.write({"id": message["id"], "result": None})
            elif accept(message):
                return message

    def request(self, method, params):
        self.last_id += 1
        request_id = self.last_id
        self.write({"id": request_id, "method": method, "params": params})
        message = self.wait(f"answer to {method}",
                            lambda m: m.get("id") == request_id)
        if "error" in message:
            fail(f"{method}: {message['error']}")
        return message.get("result")

    def wait_for_diagnostics(self, uri, version):
        """Until clangd has built this version of the file."""
        self.wait(f"diagnostics for version {version}",
                  lambda m: m.get("method") == "textDocument/publishDiagnostics"
                  and m["params"]["uri"] == uri
                  and m["params"].get("version") == version)

    def wait_for_index(self):
        """Completion takes the headers' declarations (the force-included
        ones too) from clangd's index of the preamble, which clangd builds
        after the diagnostics, all headers at once: waits until the symbols
        of <fluxion/fluxion.hpp> are there."""
        deadline = time.monotonic() + TIMEOUT
        while not self.request("workspace/symbol", {"query": "fluxion"}):
            if time.monotonic() > deadline:
                fail(f"clangd did not index the headers in {TIMEOUT} s "
                     "(does the source include <fluxion/fluxion.hpp>?)")
            time.sleep(0.5)


def main():
    args = sys.argv[1:]
    absent = args[:1] == ["--absent"]
    args = args[1:] if absent else args
    if len(args) != 4:
        sys.exit(__doc__)
    clangd_path, database, source, function = args
    source = Path(source).resolve()
    text = source.read_text()
    uri = source.as_uri()

    # The first call, and the text with that line cut after "energy".
    lines = text.split("\n")
    row = next((i for i, line in enumerate(lines) if function + "(" in line),
               None)
    if row is None:
        fail(f"{source} does not call {function}")
    call = lines[row].index(function + "(")
    prefix = function.rpartition("_")[0] or function[:-2]
    typing = lines[:row] + [lines[row][:call + len(prefix)]] + lines[row + 1:]
    complete_at = {"line": row, "character": call + len(prefix)}
    help_at = {"line": row, "character": call + len(function) + 1}

    clangd = Clangd(clangd_path, database)
    try:
        clangd.request("initialize", {
            "processId": os.getpid(), "rootUri": source.parent.as_uri(),
            "capabilities": {"textDocument": {
                "completion": {"completionItem": {"snippetSupport": False}},
                "signatureHelp": {}, "publishDiagnostics": {}}}})
        clangd.notify("initialized", {})
        clangd.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "cpp", "version": 1,
            "text": "\n".join(typing)}})
        clangd.wait_for_diagnostics(uri, 1)
        clangd.wait_for_index()
        result = clangd.request("textDocument/completion", {
            "textDocument": {"uri": uri}, "position": complete_at})
        items = (result.get("items") if isinstance(result, dict) else result) or []
        # Without labelDetails support, clangd puts the parameters in the
        # label (after a space or a bullet) and the return type in detail.
        labels = [item["label"].lstrip(" \u2022") for item in items]
        print(f"completion of '{prefix}' at {source.name}:{row + 1}:"
              f"{call + len(prefix) + 1}: {len(items)} items")
        for item, label in zip(items, labels):
            print(f"  {label} -> {item.get('detail', '')}")

        clangd.notify("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": text}]})
        clangd.wait_for_diagnostics(uri, 2)
        result = clangd.request("textDocument/signatureHelp", {
            "textDocument": {"uri": uri}, "position": help_at})
        signatures = [s["label"] for s in (result or {}).get("signatures", [])]
        print(f"signature help at {source.name}:{row + 1}:"
              f"{call + len(function) + 2}: {len(signatures)} signatures")
        for label in signatures:
            print(f"  {label}")

        clangd.request("shutdown", None)
        clangd.notify("exit", None)
        clangd.proc.wait(timeout=TIMEOUT)
    finally:
        if clangd.proc.poll() is None:
            clangd.proc.kill()

    offered = [label for label in labels + signatures
               if label.startswith(function + "(")]
    if not items:
        fail(f"no completion at all for '{prefix}'")
    if absent:
        if offered:
            fail(f"clangd offers {function} without the declarations")
        print(f"clangd_complete: {function} not offered, as expected")
        return
    if not any(ADJOINT.search(label) for label in labels
               if label.startswith(function + "(")):
        fail(f"no completion {function}(...d_...) for '{prefix}'")
    if not any(ADJOINT.search(label) for label in signatures
               if label.startswith(function + "(")):
        fail(f"no signature help {function}(...d_...) in the call")
    print(f"clangd_complete: {function} completes with its signature")


if __name__ == "__main__":
    main()
