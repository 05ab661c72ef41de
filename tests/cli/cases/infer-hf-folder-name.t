args: infer tests/cli/data/wl-serve-only.ini --set model.hf_config=tests/cli/data/Qwen2-7B/config.json --gpu H100-SXM --format csv
exit: 0
