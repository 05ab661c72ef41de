setup: awk -F, -v OFS=, 'NR == 1 { print } NR == 2 { for (i = 0; i < 30000; i++) { $1 = "Dev-" i; print } $1 = "DEV-29999"; print }' tests/cli/data/cat-ok.csv >$T/c.csv
args: catalog --catalog $T/c.csv --gpu dev-7
exit: 3
