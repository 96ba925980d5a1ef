package grpcfastrecord

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// maxMessageSize bounds one message read from a corpus, as gRPC bounds
// what it receives by default (4 MiB) but allowing for large recordings.
const maxMessageSize = 1 << 30

// readChunk is the most a message's buffer grows by before the bytes it
// holds so far have arrived: a length prefix larger than what follows it
// costs at most about twice what follows, not the length it claims.
const readChunk = 64 << 10

// Read returns the messages of one kind that a corpus holds for a method:
// requests (RequestsFile, else RequestsJSONFile) if requests is true, else
// responses, each made by newMsg. dir is the corpus, service the full proto
// name of the service and method the method's name. It returns no messages
// and no error if the method has no such file.
//
// A corpus is input like any other: Read decodes each message with
// protobuf-go (proto.Unmarshal, protojson.Unmarshal) and returns an error
// naming the file and the message for what they reject. A length prefix is
// checked against 1 GiB and against the bytes that follow it before they
// are all kept, so a file claiming a huge message costs no more memory than
// the file's size.
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
	var (
		out []proto.Message
		buf []byte
		off int64 // of the message's length prefix in the file
	)
	for {
		size, n, err := readLength(br)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("grpcfastrecord: %s: message %d: its length prefix at byte %d: %w", name, len(out), off, err)
		}
		if size > maxMessageSize {
			return nil, fmt.Errorf("grpcfastrecord: %s: message %d: length %d at byte %d is more than the %d bytes a message may have", name, len(out), size, off, maxMessageSize)
		}
		buf, err = readN(br, buf, int(size))
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				return nil, fmt.Errorf("grpcfastrecord: %s: message %d: length %d at byte %d, but the file ends %d bytes into the message", name, len(out), size, off, len(buf))
			}
			return nil, fmt.Errorf("grpcfastrecord: %s: message %d: %w", name, len(out), err)
		}
		m := newMsg()
		if err := proto.Unmarshal(buf, m); err != nil {
			return nil, fmt.Errorf("grpcfastrecord: %s: message %d: its %d bytes at byte %d: %w", name, len(out), size, off+int64(n), err)
		}
		out = append(out, m)
		off += int64(n) + int64(size)
	}
}

// readLength reads a varint length prefix and returns it and how many
// bytes it took: io.EOF if r ends before it, io.ErrUnexpectedEOF if r ends
// inside it.
func readLength(r io.ByteReader) (uint64, int, error) {
	var b [binary.MaxVarintLen64]byte
	for i := range b {
		c, err := r.ReadByte()
		if err == io.EOF && i > 0 {
			return 0, i, io.ErrUnexpectedEOF
		}
		if err != nil {
			return 0, i, err
		}
		b[i] = c
		if c < 0x80 {
			v, n := protowire.ConsumeVarint(b[:i+1])
			if n < 0 {
				return 0, i + 1, protowire.ParseError(n)
			}
			return v, n, nil
		}
	}
	_, n := protowire.ConsumeVarint(b[:])
	return 0, len(b), protowire.ParseError(n)
}

// readN reads n bytes from r into buf's array, or a larger one, and
// returns them. It grows the array by at most readChunk or what it holds
// before reading more, so that it never holds much more than what r gave:
// if r ends first, it returns what arrived and io.ErrUnexpectedEOF.
func readN(r io.Reader, buf []byte, n int) ([]byte, error) {
	buf = buf[:0]
	for len(buf) < n {
		want := n - len(buf)
		if free := cap(buf) - len(buf); free > 0 {
			want = min(want, free)
		} else {
			want = min(want, max(len(buf), readChunk))
			buf = slices.Grow(buf, want)
		}
		k, err := io.ReadFull(r, buf[len(buf):len(buf)+want])
		buf = buf[:len(buf)+k]
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
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
