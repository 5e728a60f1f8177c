module github.com/torchtpu/torchtpu

go 1.26.8
