module github.com/grpcfast/grpcfast/peers

go 1.26.7

replace github.com/grpcfast/grpcfast => ../

require (
	connectrpc.com/connect v1.21.1
	github.com/grpcfast/grpcfast v0.0.0
	github.com/planetscale/vtprotobuf v0.6.1-0.20240319094008-0393e58bdf10
	go.opentelemetry.io/collector/featuregate v1.71.0
	go.opentelemetry.io/collector/pdata v1.71.0
	go.opentelemetry.io/collector/pdata/xpdata v0.165.0
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
	storj.io/drpc v1.0.0
)

require (
	github.com/hashicorp/go-version v1.9.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.3-0.20250322232337-35a7c28c31ee // indirect
	github.com/zeebo/errs v1.2.2 // indirect
	go.opentelemetry.io/collector/pdata/pprofile v0.165.0 // indirect
	go.uber.org/multierr v1.11.0 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
)

tool (
	connectrpc.com/connect/cmd/protoc-gen-connect-go
	storj.io/drpc/cmd/protoc-gen-go-drpc
)
