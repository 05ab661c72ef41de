setup: sed '2s/,300TFLOPS,300TFLOPS,/,1e-300TFLOPS,300TFLOPS,/' tests/cli/data/cat-ok.csv >$T/c.csv
args: train examples/llama3-8b.ini --gpu X1 --gpus 64 --catalog $T/c.csv
exit: 3
