setup: mkfifo $T/fifo && { cat $T/fifo >$T/got & }
args: catalog --format csv -o $T/fifo
exit: 0
check: i=0; while [ $i -lt 50 ] && ! grep -q '^V100' $T/got 2>/dev/null; do sleep 0.1; i=$((i+1)); done; [ -p $T/fifo ] && head -1 $T/got | grep -q '^name,vendor,'
