args: catalog --format csv -o $T/new.csv
exit: 0
check: [ "$(stat -c %a $T/new.csv)" = "$(printf '%o' $((0666 & ~$(umask))))" ]
