# Parses Prometheus text exposition from stdin with the reference parser (prometheus_client) and prints one line
# per sample: name TAB labels as JSON (sorted keys) TAB value. Exit 1 with the parser's message on invalid text.
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

try:
    families = list(text_string_to_metric_families(sys.stdin.read()))
except Exception as e:  # the parser raises ValueError and others on bad input
    print("invalid exposition: %s" % e, file=sys.stderr)
    sys.exit(1)
print("families\t%d" % len(families))
for f in families:
    for s in f.samples:
        print("%s\t%s\t%s" % (s.name, json.dumps(s.labels, sort_keys=True), json.dumps(float(s.value))))
