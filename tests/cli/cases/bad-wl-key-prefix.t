setup: printf '[model]\nparams = 8B\n\n[inference]\nttft = 1s\n' >$T/w.ini
args: infer $T/w.ini --gpu H100-SXM
exit: 3
