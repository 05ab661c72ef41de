args: fit tests/cli/data/wl-ok.ini --gpu H100-SXM --set model.hf_config=tests/cli/data/no-such.json
exit: 4
