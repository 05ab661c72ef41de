setup: echo old >$T/target.csv && chmod 604 $T/target.csv && ln -s target.csv $T/link.csv
args: catalog --format csv -o $T/link.csv
exit: 0
check: [ -L $T/link.csv ] && [ "$(readlink $T/link.csv)" = target.csv ]
check: head -1 $T/target.csv | grep -q '^name,vendor,' && [ "$(stat -c %a $T/target.csv)" = 604 ]
check: [ "$(ls -a $T | wc -l)" = 4 ]
