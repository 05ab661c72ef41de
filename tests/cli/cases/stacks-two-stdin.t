args: infer - --gpu H100-SXM --stacks -
exit: 2
