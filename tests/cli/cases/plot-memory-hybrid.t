args: plot memory examples/llama2-7b-hsdp.ini --gpu A100-SXM-80GB --gpus 128 --keep-script -o $T/s.svg
exit: 0
check: grep -q "ZeRO 3 per node, mb 2" "$T/s.gp"
