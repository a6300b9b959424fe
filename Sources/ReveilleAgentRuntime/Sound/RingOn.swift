import FoundationEssentials

/// Where alarms ring (the `ringOn` setting): the default output as the desktop sets it, every
/// output the sound server has (one stream each, started and stopped together), or one output
/// by its sink name, falling back to the default while it is not there.
package enum RingOn: Equatable, Codable {
    case defaultOutput
    case all
    case output(String)

    /// The longest sink name accepted (PulseAudio's names are far shorter).
    package static let maximumNameBytes = 255

    package init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        switch text {
        case "default": self = .defaultOutput
        case "all": self = .all
        default:
            guard !text.isEmpty, text.utf8.count <= Self.maximumNameBytes,
                  !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == " " }) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription:
                    "ringOn is \"\(text.prefix(80))\"; accepted: \"default\", \"all\", or an output's name as `reveille sounds --outputs` lists it")
            }
            self = .output(text)
        }
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .defaultOutput: try container.encode("default")
        case .all: try container.encode("all")
        case .output(let name): try container.encode(name)
        }
    }

    /// The sinks an alarm rings on, given the sinks the server has now (`nil`: the default
    /// sink), and the named output when it is not there (the alarm then rings on the default).
    package func sinks(among available: [String]) -> (sinks: [String?], missing: String?) {
        switch self {
        case .defaultOutput: return ([nil], nil)
        // Before the server has listed its sinks, the default still rings.
        case .all: return (available.isEmpty ? [nil] : available, nil)
        case .output(let name): return available.contains(name) ? ([name], nil) : ([nil], name)
        }
    }
}
