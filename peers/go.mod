module github.com/grpcfast/grpcfast/peers

go 1.26.7

replace github.com/grpcfast/grpcfast => ../

require (
	connectrpc.com/connect v1.21.1
	github.com/grpcfast/grpcfast v0.0.0
	github.com/planetscale/vtprotobuf v0.6.1-0.20240319094008-0393e58bdf10
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
	storj.io/drpc v1.0.0
)

require (
	github.com/zeebo/errs v1.2.2 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
)

tool (
	connectrpc.com/connect/cmd/protoc-gen-connect-go
	storj.io/drpc/cmd/protoc-gen-go-drpc
)
