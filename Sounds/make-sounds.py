#!/usr/bin/env python3
"""Synthesizes Reveille's bundled alarm sounds (no recorded or borrowed audio).

Run from this folder: `python3 make-sounds.py`. Writes 16-bit mono WAV files at
22 050 Hz. Each file is one cycle of its pattern; the agent loops it without gaps, so
every file ends in the silence its pattern wants before it starts again.
"""
import math
import struct
import wave

RATE = 22050


def tone(freq, seconds, volume=0.6, partials=((1, 1.0),), attack=0.005, decay=None):
    """A sine tone with optional overtones, a short attack, and an optional exponential decay."""
    frames = int(seconds * RATE)
    out = []
    for i in range(frames):
        t = i / RATE
        env = min(1.0, t / attack) if attack else 1.0
        if decay:
            env *= math.exp(-t / decay)
        else:
            env *= min(1.0, (seconds - t) / 0.01)  # 10 ms release, no click
        sample = sum(amp * math.sin(2 * math.pi * freq * mult * t) for mult, amp in partials)
        out.append(volume * env * sample / sum(a for _, a in partials))
    return out


def silence(seconds):
    return [0.0] * int(seconds * RATE)


def mix(*layers):
    length = max(len(layer) for layer in layers)
    return [sum(layer[i] for layer in layers if i < len(layer)) for i in range(length)]


def write(name, samples):
    with wave.open(name, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(b"".join(struct.pack("<h", int(max(-1, min(1, s)) * 32767)) for s in samples))


def alarm():
    """The default: four bright beeps, then a breath."""
    beep = tone(1760, 0.09, 0.7, partials=((1, 1.0), (2, 0.25)))
    return (beep + silence(0.06)) * 4 + silence(0.5)


def gentle():
    """Soft rising fifths, for waking slowly."""
    notes = [523.25, 659.25, 783.99]
    return sum((tone(f, 0.5, 0.35, decay=0.35) + silence(0.05) for f in notes), []) + silence(0.8)


def chime():
    """Two struck notes with inharmonic overtones, like a door chime."""
    partials = ((1, 1.0), (2.76, 0.35), (5.4, 0.12))
    return tone(987.77, 0.7, 0.5, partials=partials, decay=0.3) + tone(783.99, 1.2, 0.5, partials=partials, decay=0.45)


def handbell():
    """A bell-like strike: a low partial series that rings out."""
    partials = ((0.5, 0.4), (1, 1.0), (1.19, 0.45), (1.56, 0.3), (2.0, 0.25), (2.74, 0.15))
    strike = tone(880, 1.6, 0.55, partials=partials, attack=0.002, decay=0.5)
    return mix(strike, silence(0.2)) + silence(0.3)


if __name__ == "__main__":
    for name, make in [("alarm", alarm), ("gentle", gentle), ("chime", chime), ("handbell", handbell)]:
        write(f"{name}.wav", make())
        print(f"{name}.wav")
