#!/bin/sh
# bisheng / ccec where CANN's toolkit keeps them (compiler/ccec_compiler/bin, on PATH after
# eval "$(ascendsim env)"): runs ascendsim's driver (python/ascendsim/ascendc/bisheng.py) with the Python that has
# this package installed: $ASCENDSIM_PYTHON, else the virtual environment's (site-packages/../../../bin/python),
# else python3.
here=$(cd "$(dirname "$0")" && pwd)
site=$(cd "$here/../../../../.." && pwd)
python=${ASCENDSIM_PYTHON:-}
if [ -z "$python" ]; then
  if [ -x "$site/../../../bin/python" ]; then python="$site/../../../bin/python"; else python=python3; fi
fi
ASCENDSIM_DRIVER_NAME=$(basename "$0") PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" exec "$python" -m ascendsim.ascendc.bisheng "$@"
