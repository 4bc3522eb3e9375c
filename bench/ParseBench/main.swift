print("ParseBench: see bench/parse.sh")
