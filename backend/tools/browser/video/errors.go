package video

import "errors"

// ErrNoFFmpeg means no ffmpeg binary is on PATH. The frames stay on disk, so
// a video can still be made once ffmpeg is installed (Open, then Encode).
var ErrNoFFmpeg = errors.New("ffmpeg not found on PATH: install ffmpeg (apt install ffmpeg)")

// ErrNoFrames means no frame falls inside (or is on screen during) any action
// window, so there is nothing to encode.
var ErrNoFrames = errors.New("no screencast frames inside any action window")

// ErrInvalidFrame means Frame was given something that is not a JPEG image or
// has no timestamp.
var ErrInvalidFrame = errors.New("invalid screencast frame")
