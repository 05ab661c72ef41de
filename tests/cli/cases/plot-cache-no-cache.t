args: plot cache examples/llama3-70b-serving.ini --gpu H100-SXM -o chart.svg
exit: 2
