setup: ln -s missing.csv $T/link.csv
args: catalog --format csv -o $T/link.csv
exit: 4
check: [ -L $T/link.csv ] && [ ! -e $T/missing.csv ] && [ "$(ls -a $T | wc -l)" = 3 ]
