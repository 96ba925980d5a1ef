// Package vtregistered holds a test that registers vtprotobuf's own gRPC
// codec process-wide, as its README tells services to do in main(), after
// the generated packages registered grpcfast's: a test binary of its own,
// so that the registration reaches no other test.
package vtregistered
