import CGLib
import CPulse
import FoundationEssentials
import ReveilleBus
import ReveilleLoop

/// A PulseAudio client on the agent's GLib loop (`pa_glib_mainloop`), so its callbacks run
/// on the loop thread. The only file that calls libpulse; no pulse pointer leaves it.
@GLibActor
package final class PulseAudio {
    /// `pa_glib_mainloop*`, owned.
    nonisolated(unsafe) private let mainloop: OpaquePointer
    /// `pa_context*` of the current connection.
    private var context: OpaquePointer?
    private let appName: String
    private let appID: String
    /// Hears `true` when the connection is ready and `false` when it failed or ended.
    package var onReadyChange: (@GLibActor (Bool) -> Void)?
    package private(set) var isReady = false
    /// Our alarm streams' sink inputs and the volume each must keep, by sink-input index.
    private var audibleInputs: [UInt32: Double] = [:]
    private var subscribed = false
    /// The events asked of the server (`pa_subscription_mask_t`'s bits).
    private var subscribedMask: UInt32 = 0
    /// Hears a sink input of ours that was found muted or turned down, and by how much.
    package var onBreakthrough: (@GLibActor (_ muted: Bool, _ volume: Double) -> Void)?

    /// A sink: its name (what `ringOn` names) and the description a person reads.
    package struct Output: Codable, Equatable {
        package var name: String
        package var description: String
    }
    /// The server's sinks, as last listed (kept up to date while connected).
    package private(set) var outputs: [Output] = []
    /// Hears `outputs` change.
    package var onOutputsChange: (@GLibActor () -> Void)?

    package init(appName: String, appID: String) {
        mainloop = pa_glib_mainloop_new(g_main_context_default())
        self.appName = appName
        self.appID = appID
    }

    /// The connection closes before the loop it runs on is freed: its callbacks hold this
    /// object unretained, and an open connection would keep the server's client alive.
    isolated deinit {
        dropContext()
        pa_glib_mainloop_free(mainloop)
    }

    /// Opens a new connection (`pa_context_connect`) unless one is ready or under way; the
    /// server is `server`, else `PULSE_SERVER` or the session's default. Never autospawns a daemon.
    package func connect(server: String? = nil) {
        guard context == nil else { return }
        let properties = Self.proplist(["application.name": appName, "application.id": appID,
                                        "application.icon_name": "io.github.reveille.Reveille"])
        defer { pa_proplist_free(properties) }
        guard let context = pa_context_new_with_proplist(pa_glib_mainloop_get_api(mainloop), appName, properties) else { return }
        self.context = context
        pa_context_set_state_callback(context, { context, userData in
            let pulse = Unmanaged<PulseAudio>.fromOpaque(userData!).takeUnretainedValue()
            let state = pa_context_get_state(context)
            GLibActor.assumeIsolated { pulse.contextStateChanged(state) }
        }, Unmanaged.passUnretained(self).toOpaque())
        if pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            contextStateChanged(PA_CONTEXT_FAILED)
        }
    }

    /// The last error of the connection, for the log.
    package var lastError: String {
        guard let context else { return "not connected" }
        return String(cString: pa_strerror(pa_context_errno(context)))
    }

    private func contextStateChanged(_ state: pa_context_state_t) {
        switch state {
        case PA_CONTEXT_READY:
            isReady = true
            subscribe()
            listOutputs()
            onReadyChange?(true)
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            dropContext()
            let wasReady = isReady
            isReady = false
            if wasReady || state == PA_CONTEXT_FAILED { onReadyChange?(false) }
        default:
            break
        }
    }

    /// Closes the connection, if any. Its callbacks are cleared first: the context must not
    /// call into us once dropped.
    private func dropContext() {
        if let context {
            pa_context_set_state_callback(context, nil, nil)
            pa_context_set_subscribe_callback(context, nil, nil)
            pa_context_disconnect(context)
            pa_context_unref(context)
        }
        context = nil
        subscribed = false
        subscribedMask = 0
        audibleInputs = [:]
        outputs = []
    }

    /// Starts `sound` looping until `stop()`; `nil` when not connected or the stream cannot open.
    /// A `corked` stream is opened and filled but silent until `uncork()`: it wakes a
    /// suspended sink ahead of time, so the first sample comes at once.
    /// `sink`: the sink's name; `nil` is the default sink.
    package func play(_ sound: any SoundReader, volume: Double, fadeIn: TimeInterval, mediaName: String,
              eventID: String, corked: Bool = false, sink: String? = nil) -> LoopingStream? {
        guard isReady, let context else { return nil }
        // Not "event": pipewire-pulse files that under the "Notification" role, and WirePlumber
        // puts the role's stored mute and volume (the desktop's "notification sounds" switch)
        // on every new stream of it. The alarm's own role keeps the user's setting untouched;
        // `keepAudible` undoes whatever is restored onto it.
        let stream = LoopingStream(context: context, sound: sound, volume: volume, fadeIn: fadeIn, corked: corked, sink: sink,
                                   properties: ["media.role": "alarm", "media.name": mediaName, "event.id": eventID,
                                                "application.name": appName, "application.id": appID])
        stream?.onPlaying = { [weak self] index in self?.keepAudible(sinkInput: index, volume: volume) }
        return stream
    }

    /// Keeps a sink input of ours unmuted at `volume`, whatever a stream-restore policy puts
    /// on it (WirePlumber restores a role's volume after the stream appears). Changing it
    /// saves only the alarm role's own setting.
    private func keepAudible(sinkInput index: UInt32, volume: Double) {
        audibleInputs[index] = volume
        subscribe()
        checkAudible(index)
    }

    /// Hears sinks come and go (`outputs`), and sink inputs change while one of ours is to be
    /// kept audible: only then, so that an idle agent is not woken by every other program's sound.
    private func subscribe() {
        guard let context else { return }
        let mask = PA_SUBSCRIPTION_MASK_SINK.rawValue | (audibleInputs.isEmpty ? 0 : PA_SUBSCRIPTION_MASK_SINK_INPUT.rawValue)
        guard mask != subscribedMask else { return }
        subscribedMask = mask
        if let operation = pa_context_subscribe(context, pa_subscription_mask_t(rawValue: mask), nil, nil) { pa_operation_unref(operation) }
        guard !subscribed else { return }
        subscribed = true
        pa_context_set_subscribe_callback(context, { _, event, index, userData in
            let pulse = Unmanaged<PulseAudio>.fromOpaque(userData!).takeUnretainedValue()
            let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
            let type = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
            GLibActor.assumeIsolated {
                if facility == PA_SUBSCRIPTION_EVENT_SINK.rawValue, type != PA_SUBSCRIPTION_EVENT_CHANGE.rawValue {
                    pulse.listOutputs()
                } else if facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue {
                    if type == PA_SUBSCRIPTION_EVENT_REMOVE.rawValue {
                        pulse.audibleInputs[index] = nil
                        pulse.subscribe()
                    } else {
                        pulse.checkAudible(index)
                    }
                }
            }
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Lists the sinks into `outputs` (`pa_context_get_sink_info_list`).
    private func listOutputs() {
        guard let context else { return }
        var listed: [Output] = []
        let box = CallbackBox({ [weak self] (output: Output?) in
            guard let output else {
                guard let self, self.outputs != listed else { return }
                self.outputs = listed
                self.onOutputsChange?()
                return
            }
            listed.append(output)
        } as @GLibActor (Output?) -> Void)
        let operation = pa_context_get_sink_info_list(context, { _, info, endOfList, userData in
            typealias Box = CallbackBox<@GLibActor (Output?) -> Void>
            let heard = Box.from(userData)
            guard let info else {
                if endOfList != 0 { _ = Box.take(userData) }
                if endOfList > 0 { GLibActor.assumeIsolated { heard(nil) } }
                return
            }
            let output = Output(name: String(cString: info.pointee.name),
                                description: info.pointee.description.map { String(cString: $0) } ?? "")
            GLibActor.assumeIsolated { heard(output) }
        }, box.retainedPointer)
        if let operation { pa_operation_unref(operation) } else { releaseCallbackBox(box.retainedPointer) }
    }

    /// Reads a guarded sink input (`pa_context_get_sink_input_info`) and puts back its mute and
    /// volume when something changed them.
    private func checkAudible(_ index: UInt32) {
        guard let context, audibleInputs[index] != nil else { return }
        let box = CallbackBox({ [weak self] (muted: Bool, volumes: [UInt32]) in self?.enforce(index, muted: muted, volumes: volumes) }
                              as @GLibActor (Bool, [UInt32]) -> Void)
        let operation = pa_context_get_sink_input_info(context, index, { _, info, endOfList, userData in
            typealias Box = CallbackBox<@GLibActor (Bool, [UInt32]) -> Void>
            guard let info else {
                if endOfList != 0 { _ = Box.take(userData) }
                return
            }
            let found = Box.from(userData)
            var volume = info.pointee.volume
            let channels = Int(volume.channels)
            let values = withUnsafeBytes(of: &volume.values) { Array($0.bindMemory(to: pa_volume_t.self).prefix(channels)) }
            let muted = info.pointee.mute != 0
            GLibActor.assumeIsolated { found(muted, values) }
        }, box.retainedPointer)
        if let operation { pa_operation_unref(operation) } else { releaseCallbackBox(box.retainedPointer) }
    }

    private func enforce(_ index: UInt32, muted: Bool, volumes: [UInt32]) {
        guard let context, let wanted = audibleInputs[index], !volumes.isEmpty else { return }
        let target = pa_sw_volume_from_linear(wanted)
        // Within 1 %: volumes round-trip through floats in PipeWire.
        let quiet = volumes.contains { Double($0) < Double(target) * 0.99 }
        guard muted || quiet else { return }
        if quiet {
            var volume = pa_cvolume()
            pa_cvolume_set(&volume, UInt32(volumes.count), target)
            if let operation = pa_context_set_sink_input_volume(context, index, &volume, nil, nil) { pa_operation_unref(operation) }
        }
        if muted, let operation = pa_context_set_sink_input_mute(context, index, 0, nil, nil) { pa_operation_unref(operation) }
        onBreakthrough?(muted, Double(volumes.max() ?? 0) / Double(PA_VOLUME_NORM))
    }

    /// What a sink's mute and volume were, to put them back exactly.
    package struct SinkState: Codable, Equatable {
        package var name: String
        package var muted: Bool
        /// Per-channel volumes, `pa_volume_t` values (65536 is 100%).
        package var volumes: [UInt32]

        package var loudest: Double { Double(volumes.max() ?? 0) / Double(PA_VOLUME_NORM) }
    }

    /// A sink's state, the default one unless named (`pa_context_get_sink_info_by_name`).
    package func sink(named name: String = "@DEFAULT_SINK@", _ completion: @escaping @GLibActor (SinkState?) -> Void) {
        guard isReady, let context else { return completion(nil) }
        let box = CallbackBox(completion)
        let operation = pa_context_get_sink_info_by_name(context, name, { _, info, endOfList, userData in
            typealias Box = CallbackBox<@GLibActor (SinkState?) -> Void>
            let completion = Box.from(userData)
            guard let info else {
                // The end of the list (eol > 0), or an error (eol < 0): the box is done either way.
                if endOfList != 0 { _ = Box.take(userData) }
                if endOfList < 0 { GLibActor.assumeIsolated { completion(nil) } }
                return
            }
            var volume = info.pointee.volume
            let channels = Int(volume.channels)
            let values = withUnsafeBytes(of: &volume.values) { Array($0.bindMemory(to: pa_volume_t.self).prefix(channels)) }
            let state = SinkState(name: String(cString: info.pointee.name), muted: info.pointee.mute != 0, volumes: values)
            GLibActor.assumeIsolated { completion(state) }
        }, box.retainedPointer)
        if let operation { pa_operation_unref(operation) } else { releaseCallbackBox(box.retainedPointer); completion(nil) }
    }

    /// Sets a sink's mute and per-channel volumes (`pa_context_set_sink_mute_by_name`,
    /// `pa_context_set_sink_volume_by_name`).
    package func setSink(_ state: SinkState) {
        guard isReady, let context, !state.volumes.isEmpty else { return }
        var volume = pa_cvolume()
        volume.channels = UInt8(min(state.volumes.count, Int(PA_CHANNELS_MAX)))
        withUnsafeMutableBytes(of: &volume.values) { raw in
            let values = raw.bindMemory(to: pa_volume_t.self)
            for (index, value) in state.volumes.prefix(Int(volume.channels)).enumerated() { values[index] = value }
        }
        if let operation = pa_context_set_sink_volume_by_name(context, state.name, &volume, nil, nil) { pa_operation_unref(operation) }
        if let operation = pa_context_set_sink_mute_by_name(context, state.name, state.muted ? 1 : 0, nil, nil) {
            pa_operation_unref(operation)
        }
    }

    fileprivate static func proplist(_ values: [String: String]) -> OpaquePointer {
        let list = pa_proplist_new()!
        for (key, value) in values { pa_proplist_sets(list, key, value) }
        return list
    }
}

/// One sound looping without gaps on its own stream, until `stop()`.
@GLibActor
package final class LoopingStream {
    /// Streams stopped before the server made them, which it still holds until it has (each
    /// takes one of a sink's 256 places meanwhile).
    package private(set) static var ending = 0

    /// `pa_stream*`; nil once stopped.
    private var stream: OpaquePointer?
    private let sound: any SoundReader
    private let fadeFrames: Double
    private var framesWritten = 0
    /// Hears the stream fail (the server went away); not called after `stop()`.
    package var onFailure: (@GLibActor () -> Void)?
    /// Hears the stream's sink-input index once it plays (`PA_STREAM_READY`).
    package var onPlaying: (@GLibActor (UInt32) -> Void)?

    fileprivate init?(context: OpaquePointer, sound: any SoundReader, volume: Double, fadeIn: TimeInterval,
                      corked: Bool, sink: String?, properties: [String: String]) {
        self.sound = sound
        fadeFrames = fadeIn * Double(sound.sampleRate)
        var spec = pa_sample_spec(format: PA_SAMPLE_FLOAT32LE, rate: UInt32(sound.sampleRate), channels: UInt8(sound.channels))
        let list = PulseAudio.proplist(properties)
        defer { pa_proplist_free(list) }
        guard let stream = pa_stream_new_with_proplist(context, properties["media.name"], &spec, nil, list) else { return nil }
        self.stream = stream
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_stream_set_write_callback(stream, { _, bytes, userData in
            let player = Unmanaged<LoopingStream>.fromOpaque(userData!).takeUnretainedValue()
            GLibActor.assumeIsolated { player.write(bytes) }
        }, me)
        pa_stream_set_state_callback(stream, { stream, userData in
            let player = Unmanaged<LoopingStream>.fromOpaque(userData!).takeUnretainedValue()
            let state = pa_stream_get_state(stream)
            let index = pa_stream_get_index(stream)
            GLibActor.assumeIsolated {
                if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED { player.failed() }
                if state == PA_STREAM_READY {
                    if player.uncorkWhenMade { player.uncork() }
                    player.onPlaying?(index)
                }
            }
        }, me)
        // A small target latency: the first sample comes fast and Stop is silent fast.
        let bytesPerSecond = UInt32(sound.sampleRate * sound.channels * MemoryLayout<Float>.size)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: bytesPerSecond / 20, prebuf: UInt32.max,
                                        minreq: UInt32.max, fragsize: UInt32.max)
        var cvolume = pa_cvolume()
        pa_cvolume_set(&cvolume, UInt32(sound.channels), pa_sw_volume_from_linear(volume))
        let flags = pa_stream_flags_t(rawValue: PA_STREAM_START_UNMUTED.rawValue | PA_STREAM_ADJUST_LATENCY.rawValue
                                      | (corked ? PA_STREAM_START_CORKED.rawValue : 0))
        guard pa_stream_connect_playback(stream, sink, &attributes, flags, &cvolume, nil) == 0 else {
            stop()
            return nil
        }
    }

    /// Asked to start before the server had made the stream: started once it is made.
    private var uncorkWhenMade = false

    /// Starts a stream opened corked (`pa_stream_cork`). PulseAudio refuses to uncork a stream
    /// it has not made yet (`PA_ERR_BADSTATE`): asked then, the stream stays corked, and an alarm
    /// due while the server was slow to make its stream (opened 1.5 s ahead, on a loaded
    /// machine) rang silent for a minute. Asked before it is made, it starts when it is.
    package func uncork() {
        guard let stream else { return }
        guard pa_stream_get_state(stream) == PA_STREAM_READY else {
            uncorkWhenMade = true
            return
        }
        uncorkWhenMade = false
        guard let operation = pa_stream_cork(stream, 0, nil, nil) else { return }
        pa_operation_unref(operation)
    }

    /// Ends the sound at once: the stream is disconnected, not drained.
    package func stop() {
        guard let stream else { return }
        self.stream = nil
        pa_stream_set_write_callback(stream, nil, nil)
        guard pa_stream_get_state(stream) != PA_STREAM_CREATING else {
            // PulseAudio refuses to disconnect a stream it has not made yet (PA_ERR_BADSTATE):
            // left so, it is made and plays on with nobody to end it (300 previews stopped as
            // they were asked for left 256 streams playing). It is ended once it is made; the
            // reference is given back then.
            Self.ending += 1
            pa_stream_set_state_callback(stream, { stream, _ in
                guard let stream else { return }
                let state = pa_stream_get_state(stream)
                guard state == PA_STREAM_READY || state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED else { return }
                pa_stream_set_state_callback(stream, nil, nil)
                if state == PA_STREAM_READY { pa_stream_disconnect(stream) }
                pa_stream_unref(stream)
                GLibActor.assumeIsolated { LoopingStream.ending -= 1 }
            }, nil)
            return
        }
        pa_stream_set_state_callback(stream, nil, nil)
        pa_stream_disconnect(stream)
        pa_stream_unref(stream)
    }

    private func failed() {
        stop()
        onFailure?()
    }

    /// Fills what the server asks for (`pa_stream_begin_write` / `pa_stream_write`), wrapping
    /// around the sound's end and applying the fade-in.
    private func write(_ requested: Int) {
        guard let stream else { return }
        var data: UnsafeMutableRawPointer?
        var bytes = requested
        guard pa_stream_begin_write(stream, &data, &bytes) == 0, let data, bytes > 0 else { return }
        let channels = sound.channels
        let frames = bytes / (channels * MemoryLayout<Float>.size)
        let output = data.bindMemory(to: Float.self, capacity: frames * channels)
        sound.read(into: output, frames: frames)
        if fadeFrames > 0, Double(framesWritten) < fadeFrames {
            for frame in 0..<frames {
                let gain = Float(min(1, Double(framesWritten + frame) / fadeFrames))
                for channel in 0..<channels { output[frame * channels + channel] *= gain }
            }
        }
        framesWritten += frames
        pa_stream_write(stream, data, frames * channels * MemoryLayout<Float>.size, nil, 0, PA_SEEK_RELATIVE)
    }
}
