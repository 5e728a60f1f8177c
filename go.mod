module github.com/torchtpu/torchtpu

go 1.26.8

require (
	github.com/gomlx/gopjrt v0.10.0
	golang.org/x/sys v0.50.0
)

require (
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	google.golang.org/protobuf v1.36.10 // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
)
