"""Recurrent held-out cases: nn.LSTM, nn.GRU, nn.RNN in their layouts
(layers, bidirectional, batch_first, initial states, projections) and
LSTMCell/GRUCell/RNNCell loops unrolled by the export."""
import torch
from torch import nn


class Seq(nn.Module):
    """Runs a recurrent module, optionally with initial states, and returns
    the output sequence and final states."""

    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, *state):
        if not state:
            return self.rnn(x)
        if isinstance(self.rnn, nn.LSTM):
            return self.rnn(x, (state[0], state[1]))
        return self.rnn(x, state[0])


class CellLoop(nn.Module):
    """A cell applied step by step over a (seq, batch, feat) input."""

    def __init__(self, cell, lstm):
        super().__init__()
        self.cell = cell
        self.lstm = lstm
        self.head = nn.Linear(cell.hidden_size, 3)

    def forward(self, x, h):
        c = torch.zeros_like(h)
        outs = []
        for t in range(x.shape[0]):
            if self.lstm:
                h, c = self.cell(x[t], (h, c))
            else:
                h = self.cell(x[t], h)
            outs.append(self.head(h))
        return torch.stack(outs), h


class LSTMLanguageModel(nn.Module):
    """Embedding → 2-layer LSTM → tied-free vocabulary projection."""

    def __init__(self, vocab, emb, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, ids):
        y, (h, c) = self.lstm(self.emb(ids))
        return self.out(y).log_softmax(-1), h


class GRUClassifier(nn.Module):
    """Bidirectional GRU, max over time of the outputs, layer norm, head."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(5, 7, bidirectional=True, batch_first=True)
        self.norm = nn.LayerNorm(14)
        self.head = nn.Linear(14, 4)

    def forward(self, x):
        y, h = self.gru(x)
        return self.head(self.norm(y.amax(1))), torch.cat([h[0], h[1]], -1)


class GreedySeq2Seq(nn.Module):
    """GRU encoder, dot-attention GRUCell decoder, greedy argmax decoding
    (each step embeds the previous step's argmax) for 5 steps."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.enc = nn.GRU(8, 8, batch_first=True)
        self.dec = nn.GRUCell(16, 8)
        self.out = nn.Linear(8, 20)

    def forward(self, src):
        mem, h = self.enc(self.emb(src))
        h = h[0]
        tok = torch.zeros(src.shape[0], dtype=torch.long)
        logits = []
        for _ in range(5):
            a = torch.softmax((mem @ h.unsqueeze(-1)).squeeze(-1), -1)
            ctx = (a.unsqueeze(-1) * mem).sum(1)
            h = self.dec(torch.cat([self.emb(tok), ctx], -1))
            step = self.out(h)
            logits.append(step)
            tok = step.argmax(-1)
        return torch.stack(logits, 1)


def rnn_cases(full):
    f, hdim, seq = (32, 64, 20) if full else (5, 6, 4)
    return [
        ("lstm_1l", nn.LSTM(f, hdim), False, False),
        ("lstm_2l_batch_first", nn.LSTM(f, hdim, num_layers=2, batch_first=True), False, False),
        ("lstm_bidir", nn.LSTM(f, hdim, bidirectional=True), False, True),
        ("lstm_2l_bidir_bf_state", nn.LSTM(f, hdim, num_layers=2, bidirectional=True, batch_first=True), True, True),
        ("lstm_proj", nn.LSTM(f, hdim, proj_size=3), False, False),
        ("lstm_nobias", nn.LSTM(f, hdim, bias=False), False, False),
        ("gru_1l", nn.GRU(f, hdim), False, False),
        ("gru_2l_bidir_bf", nn.GRU(f, hdim, num_layers=2, bidirectional=True, batch_first=True), False, True),
        ("gru_state", nn.GRU(f, hdim, num_layers=2), True, False),
        ("rnn_tanh", nn.RNN(f, hdim), False, False),
        ("rnn_relu_2l_bidir", nn.RNN(f, hdim, num_layers=2, nonlinearity="relu", bidirectional=True), True, True),
        ("rnn_tanh_bf", nn.RNN(f, hdim, batch_first=True), False, False),
    ], f, hdim, seq


def cases(Case, full):
    out = []
    prefix = "full_" if full else ""
    rnns, f, hdim, seq = rnn_cases(full)
    for i, (name, rnn, with_state, bidir) in enumerate(rnns):
        torch.manual_seed(300 + i)
        rnn.eval()
        m = Seq(rnn)
        b = 3
        x = torch.randn(b, seq, f) if rnn.batch_first else torch.randn(seq, b, f)
        xs = [x]
        if with_state:
            d = 2 if bidir else 1
            hsize = getattr(rnn, "proj_size", 0) or hdim
            xs.append(torch.randn(rnn.num_layers * d, b, hsize))
            if isinstance(rnn, nn.LSTM):
                xs.append(torch.randn(rnn.num_layers * d, b, hdim))
        out.append(Case(prefix + name, m, xs))
    for j, (name, cell, lstm) in enumerate([("lstm_cell_loop", nn.LSTMCell(f, hdim), True),
                                            ("gru_cell_loop", nn.GRUCell(f, hdim), False),
                                            ("rnn_cell_loop", nn.RNNCell(f, hdim, nonlinearity="relu"), False)]):
        torch.manual_seed(400 + j)
        out.append(Case(prefix + name, CellLoop(cell, lstm), [torch.randn(seq, 2, f), torch.randn(2, hdim)]))
    if not full:
        torch.manual_seed(600)
        out.append(Case("lstm_lm", LSTMLanguageModel(50, 8, 12), [torch.randint(0, 50, (2, 7))]))
        torch.manual_seed(601)
        out.append(Case("seq2seq_greedy", GreedySeq2Seq(), [torch.randint(0, 20, (2, 6))]))
        out.append(Case("gru_classifier_packed_free", GRUClassifier(), [torch.randn(3, 6, 5)]))
        m = Seq(nn.LSTM(f, hdim, num_layers=2, bidirectional=True).double().eval())
        out.append(Case("lstm_f64", m, [torch.randn(seq, 2, f, dtype=torch.float64)]))
        m = Seq(nn.GRU(f, hdim, batch_first=True).to(torch.bfloat16).eval())
        out.append(Case("gru_bf16", m, [torch.randn(2, seq, f, dtype=torch.bfloat16)]))
        m = Seq(nn.LSTM(f, hdim).eval())
        out.append(Case("lstm_unbatched", m, [torch.randn(seq, f)]))
        m = Seq(nn.RNN(f, hdim, num_layers=3).eval())
        out.append(Case("rnn_tanh_3l_long", m, [torch.randn(40, 2, f)]))
        torch.manual_seed(500)
        m = Seq(nn.LSTM(f, hdim, num_layers=2, bidirectional=True).eval())
        out.append(Case("lstm_2l_bidir_core_aten", m, [torch.randn(seq, 2, f)], decomp=True))
        m = Seq(nn.GRU(f, hdim).eval())
        out.append(Case("gru_core_aten", m, [torch.randn(seq, 2, f)], decomp=True))
        m = Seq(nn.LSTM(f, hdim, batch_first=True).eval())
        out.append(Case("lstm_dynamic_batch", m, [torch.randn(2, seq, f)],
                        dynamic=({0: torch.export.Dim("batch", min=1, max=16)},),
                        run_inputs=(torch.randn(5, seq, f),)))
    return out
