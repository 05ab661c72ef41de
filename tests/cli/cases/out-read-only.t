setup: echo old >$T/ro.json && chmod 444 $T/ro.json
args: catalog --format json -o $T/ro.json
exit: 4
check: [ "$(cat $T/ro.json)" = old ] && [ "$(stat -c %a $T/ro.json)" = 444 ]
check: [ "$(ls -a $T | wc -l)" = 3 ]
