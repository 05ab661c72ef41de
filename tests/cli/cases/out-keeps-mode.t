setup: echo old >$T/m.csv && chmod 640 $T/m.csv
args: catalog --format csv -o $T/m.csv
exit: 0
check: [ "$(stat -c %a $T/m.csv)" = 640 ] && head -1 $T/m.csv | grep -q '^name,vendor,'
check: [ "$(ls -a $T | wc -l)" = 3 ]
