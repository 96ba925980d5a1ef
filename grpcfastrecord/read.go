package grpcfastrecord

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// maxMessageSize bounds one message read from a corpus, as gRPC bounds
// what it receives by default (4 MiB) but allowing for large recordings.
const maxMessageSize = 1 << 30

// Read returns the messages of one kind that a corpus holds for a method:
// requests (RequestsFile, else RequestsJSONFile) if requests is true, else
// responses, each made by newMsg. dir is the corpus, service the full proto
// name of the service and method the method's name. It returns no messages
// and no error if the method has no such file.
func Read(dir, service, method string, requests bool, newMsg func() proto.Message) ([]proto.Message, error) {
	bin, js := ResponsesFile, ResponsesJSONFile
	if requests {
		bin, js = RequestsFile, RequestsJSONFile
	}
	base := filepath.Join(dir, service, method)
	if f, err := os.Open(filepath.Join(base, bin)); err == nil {
		defer f.Close()
		return readBinary(f, f.Name(), newMsg)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	f, err := os.Open(filepath.Join(base, js))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readJSON(f, f.Name(), newMsg)
}

func readBinary(r io.Reader, name string, newMsg func() proto.Message) ([]proto.Message, error) {
	br := bufio.NewReader(r)
	opts := protodelim.UnmarshalOptions{MaxSize: maxMessageSize}
	var out []proto.Message
	for {
		m := newMsg()
		err := opts.UnmarshalFrom(br, m)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("grpcfastrecord: %s: message %d: %w", name, len(out), err)
		}
		out = append(out, m)
	}
}

func readJSON(r io.Reader, name string, newMsg func() proto.Message) ([]proto.Message, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxMessageSize)
	var out []proto.Message
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		m := newMsg()
		if err := protojson.Unmarshal(text, m); err != nil {
			return nil, fmt.Errorf("grpcfastrecord: %s:%d: %w", name, line, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("grpcfastrecord: %s: %w", name, err)
	}
	return out, nil
}
