setup: sed '2s/,300GB\/s,/,1e-300GB\/s,/' tests/cli/data/cat-ok.csv >$T/c.csv
args: train examples/llama3-8b.ini --gpu X1 --gpus 64 --catalog $T/c.csv
exit: 3
