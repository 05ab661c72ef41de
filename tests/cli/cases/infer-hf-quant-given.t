args: infer tests/cli/data/wl-serve-only.ini --set inference.weight_precision=int4 --set model.hf_config=tests/cli/data/hf-quant-hqq.json --gpu H100-SXM
exit: 0
