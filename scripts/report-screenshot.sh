#!/usr/bin/env bash
# Regenerates docs/report.png, the README's picture of `crawlgate report --html`:
#   bash scripts/report-screenshot.sh [OUT.png [OUT.html]]   (OUT.html: keep the page too)
#
# Serves five demo robots.txt on 127.0.0.1 (python3's http.server, fixed ports 18931-18935 so
# that the picture does not change between runs) — one with problems, a 404, a 503, a redirect
# and a file that changes — runs `crawlgate report` against them three times a day apart
# (CRAWLGATE_NOW), writes the page, and screenshots it with headless Chromium (`--screenshot`,
# time zone Europe/Prague). Needs python3 and chromium (`bash scripts/test.sh` installs both).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/report.png}
out_html=${2:-}
base_port=18931

command -v python3 >/dev/null || { echo "error: python3 missing (bash scripts/test.sh installs it)" >&2; exit 2; }
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$chromium" ] || { echo "error: chromium missing: run bash scripts/test.sh (or apt-get install chromium)" >&2; exit 2; }

cargo build --quiet --bin crawlgate
bin=target/debug/crawlgate

work=$(mktemp -d)
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

cat >"$work/server.py" <<'EOF'
import http.server, socketserver, sys, threading

base, gen_file = int(sys.argv[1]), sys.argv[2]
PROBLEMS = b"""# Shop robots.txt
User-agent: *
Disallow: /cart
Disallow: /checkout/
Allow: /checkout/help
Crawl-delay: 10
Disalow: /search
Noindex: /print/

User-agent: GPTBot
Disallow: /
<script>document.title='pwned'</script>
Sitemap: /sitemap.xml
"""
CHANGING = [
    b"User-agent: *\nDisallow: /drafts/\n",
    b"User-agent: *\nDisallow: /drafts/\nDisallow: /beta/\n",
    b"User-agent: *\nDisallow: /drafts/\nAllow: /beta/launch\nDisallow: /beta/\nDisallow: /old/\n",
]

def handler(kind):
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass
        def reply(self, status, body=b"", headers=()):
            self.send_response(status)
            for k, v in headers:
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        def do_GET(self):
            if kind == "problems":
                self.reply(200, PROBLEMS, [("Content-Type", "text/plain")])
            elif kind == "missing":
                self.reply(404)
            elif kind == "down":
                self.reply(503)
            elif kind == "moved" and self.path == "/robots.txt":
                self.reply(301, headers=[("Location", "/en/robots.txt")])
            elif kind == "moved":
                self.reply(200, b"User-agent: *\nDisallow: /admin/\n", [("Content-Type", "text/plain")])
            else:
                gen = int(open(gen_file).read().strip() or 0)
                self.reply(200, CHANGING[min(gen, 2)], [("Content-Type", "text/plain")])
    return H

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

servers = [Server(("127.0.0.1", base + i), handler(k))
           for i, k in enumerate(["problems", "missing", "down", "moved", "changing"])]
for s in servers[1:]:
    threading.Thread(target=s.serve_forever, daemon=True).start()
print("ready", flush=True)
servers[0].serve_forever()
EOF

echo 0 >"$work/generation"
python3 "$work/server.py" "$base_port" "$work/generation" >"$work/server.out" 2>&1 &
server_pid=$!
for _ in $(seq 50); do grep -q ready "$work/server.out" 2>/dev/null && break; sleep 0.1; done
grep -q ready "$work/server.out" || { cat "$work/server.out" >&2; echo "error: the demo servers did not start (ports $base_port-$((base_port + 4)) taken?)" >&2; exit 1; }

printf '%s\n' /cart /checkout/help /beta/launch /beta/x /old/page /search?q=shoes >"$work/urls.txt"
targets=()
for i in 0 1 2 3 4; do targets+=("http://127.0.0.1:$((base_port + i))/"); done
run() {
    CRAWLGATE_NOW="2026-11-$1T10:00:00Z" XDG_STATE_HOME="$work" "$bin" report \
        --state "$work/state.redb" --agent Googlebot --agent GPTBot --urls "$work/urls.txt" \
        "${@:2}" "${targets[@]}" >/dev/null || [ $? -eq 1 ]
}
run 18
echo 1 >"$work/generation"
run 19
echo 2 >"$work/generation"
run 20 --html "$work/report.html"

mkdir -p "$(dirname "$out")"
TZ=Europe/Prague "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$work/profile" --window-size=1280,1700 --screenshot="$work/report.png" \
    "file://$work/report.html" >/dev/null 2>"$work/chromium.log" || { tail "$work/chromium.log" >&2; exit 1; }
cp "$work/report.png" "$out"
if [ -n "$out_html" ]; then cp "$work/report.html" "$out_html"; fi
echo "wrote $out ($(wc -c <"$out") bytes; page $(wc -c <"$work/report.html") bytes)" >&2
