args: plot scaling examples/llama3-8b.ini -o chart.png --format json
exit: 2
