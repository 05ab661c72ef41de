setup: { head -1 tests/cli/data/cat-ok.csv; row=$(sed -n 2p tests/cli/data/cat-ok.csv | cut -d, -f2-); i=0; while [ $i -lt 257 ]; do echo "X$i,$row"; i=$((i+1)); done; } >$T/big.csv
args: fit tests/cli/data/wl-ok.ini --catalog $T/big.csv
exit: 2
