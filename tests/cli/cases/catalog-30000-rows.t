setup: awk -F, -v OFS=, 'NR == 1 { print } NR == 2 { for (i = 0; i < 30000; i++) { $1 = "Dev-" i; print } }' tests/cli/data/cat-ok.csv >$T/c.csv
args: catalog --catalog $T/c.csv --gpu DEV-29999,dev-0 --format csv
exit: 0
