module github.com/grpcfast/grpcfast

go 1.23.0

require (
	github.com/bufbuild/protocompile v0.14.1
	github.com/planetscale/vtprotobuf v0.6.1-0.20240319094008-0393e58bdf10
	golang.org/x/net v0.29.0
	golang.org/x/sys v0.25.0
	google.golang.org/grpc v1.68.0
	google.golang.org/protobuf v1.36.0
)

require (
	golang.org/x/sync v0.8.0 // indirect
	golang.org/x/text v0.18.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20240903143218-8af14fe29dc1 // indirect
)
