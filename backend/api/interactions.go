package api

import (
	"context"
	"net/http"
	"strconv"

	"steward/backend/inbox"
	"steward/backend/store"
)

// maxBatch bounds the answers of one batch: a turn's calls, with room.
const maxBatch = 100

func (s *Server) listInteractions(w http.ResponseWriter, r *http.Request) error {
	status, err := qInteractionStatus.value(r)
	if err != nil {
		return err
	}
	f := store.InteractionFilter{Status: status, RunID: qInteractionRun.get(r)}
	list, err := s.cfg.Store.ListInteractions(r.Context(), f)
	if err != nil {
		return err
	}
	out := interactionsBody{Interactions: make([]Interaction, len(list))}
	for i, it := range list {
		out.Interactions[i] = wireInteraction(it)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request) error {
	var a Answer
	if err := decode(w, r, &a); err != nil {
		return err
	}
	it, err := s.answerInteraction(r.Context(), r.PathValue("id"), a, "api")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wireInteraction(it))
	return nil
}

var sources = map[string]bool{"web": true, "desktop": true, "cli": true, "api": true}

func (s *Server) answerInteraction(ctx context.Context, id string, a Answer, defaultSource string) (store.Interaction, error) {
	if a.Source == "" {
		a.Source = defaultSource
	}
	if !sources[a.Source] {
		return store.Interaction{}, errorf(http.StatusBadRequest, CodeInvalid, "source "+strconv.Quote(a.Source)+" is not one of web, desktop, cli, api")
	}
	return s.cfg.Inbox.Answer(ctx, id, inbox.Decision{Decision: string(a.Decision), Feedback: a.Feedback, Source: a.Source,
		Scope: string(a.Scope), AnyArgument: a.AnyArgument, Folder: a.Folder, Arguments: a.Arguments, Text: a.Text, Choices: a.Choices, Content: a.Content})
}

// answerMany answers each interaction of the batch on its own, in order: one
// that is refused (already answered, invalid) does not stop the others, and
// its result says why.
func (s *Server) answerMany(w http.ResponseWriter, r *http.Request) error {
	var in Answers
	if err := decode(w, r, &in); err != nil {
		return err
	}
	switch {
	case len(in.Answers) == 0:
		return errorf(http.StatusBadRequest, CodeInvalid, "answers is empty")
	case len(in.Answers) > maxBatch:
		return errorf(http.StatusBadRequest, CodeInvalid, "answers holds "+strconv.Itoa(len(in.Answers))+" answers, more than "+strconv.Itoa(maxBatch))
	}
	seen := map[string]bool{}
	for i, a := range in.Answers {
		switch {
		case a.ID == "":
			return errorf(http.StatusBadRequest, CodeInvalid, "answers["+strconv.Itoa(i)+"]: id is missing")
		case seen[a.ID]:
			return errorf(http.StatusBadRequest, CodeInvalid, "answers["+strconv.Itoa(i)+"]: "+a.ID+" is answered twice")
		}
		seen[a.ID] = true
	}
	out := answersBody{Results: make([]AnswerResult, len(in.Answers))}
	for i, a := range in.Answers {
		out.Results[i].ID = a.ID
		it, err := s.answerInteraction(r.Context(), a.ID, a.Answer, "api")
		if err != nil {
			e := classify(err)
			if e.Status >= 500 {
				s.cfg.Logf("api: answer %s: %v", a.ID, err)
			}
			out.Results[i].Error = &ErrorInfo{Code: e.Code, Message: e.Message}
			continue
		}
		wi := wireInteraction(it)
		out.Results[i].Interaction = &wi
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
