#!/bin/sh
# The vnpu with its layers computed by the oracle (for test-vnpu-oracle).
exec "$(dirname "$0")/../../build/bin/vnpu" --layers oracle "$@"
