import CGLib
import FoundationEssentials

/// A D-Bus value as Swift sees it, converted to and from `GVariant`.
package indirect enum Variant: Hashable, Sendable {
    case bool(Bool)
    case byte(UInt8)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case variant(Variant)
    case tuple([Variant])
    /// An array; `elementType` is its D-Bus signature, needed when it is empty.
    case array(elementType: String, [Variant])
    case dictEntry(Variant, Variant)

    /// `as`: an array of strings.
    package static func strings(_ values: [String]) -> Variant {
        .array(elementType: "s", values.map(Variant.string))
    }

    /// `a{sv}`: the usual options and hints dictionary.
    package static func vardict(_ values: [String: Variant]) -> Variant {
        .array(elementType: "{sv}", values.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .variant($0.value)) })
    }

    package var string: String? {
        switch self {
        case .string(let text), .objectPath(let text): text
        case .variant(let inner): inner.string
        default: nil
        }
    }

    package var double: Double? {
        switch self {
        case .double(let value): value
        case .variant(let inner): inner.double
        default: int64.map(Double.init)
        }
    }

    package var uint32: UInt32? {
        switch self {
        case .uint32(let value): value
        case .variant(let inner): inner.uint32
        default: nil
        }
    }

    package var int64: Int64? {
        switch self {
        case .byte(let value): Int64(value)
        case .int32(let value): Int64(value)
        case .uint32(let value): Int64(value)
        case .int64(let value): value
        case .uint64(let value): Int64(exactly: value)
        case .bool(let value): value ? 1 : 0
        case .variant(let inner): inner.int64
        default: nil
        }
    }

    /// The entries of an `a{s...}` dictionary, variants unwrapped.
    package var dictionary: [String: Variant]? {
        guard case .array(_, let entries) = self else { return nil }
        var result: [String: Variant] = [:]
        for case .dictEntry(let key, let value) in entries {
            guard let key = key.string else { return nil }
            if case .variant(let inner) = value { result[key] = inner } else { result[key] = value }
        }
        return result
    }

    package var array: [Variant]? {
        if case .array(_, let items) = self { return items }
        return nil
    }

    /// The D-Bus signature of this value.
    package var signature: String {
        switch self {
        case .bool: "b"
        case .byte: "y"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .variant: "v"
        case .tuple(let items): "(" + items.map(\.signature).joined() + ")"
        case .array(let elementType, _): "a" + elementType
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        }
    }

    /// A new floating `GVariant*`; the C call it is passed to takes ownership.
    package func makeGVariant() -> OpaquePointer {
        switch self {
        case .bool(let value): return g_variant_new_boolean(value ? 1 : 0)
        case .byte(let value): return g_variant_new_byte(value)
        case .int32(let value): return g_variant_new_int32(value)
        case .uint32(let value): return g_variant_new_uint32(value)
        case .int64(let value): return g_variant_new_int64(gint64(value))
        case .uint64(let value): return g_variant_new_uint64(guint64(value))
        case .double(let value): return g_variant_new_double(value)
        case .string(let value): return g_variant_new_string(Self.validUTF8(value))
        case .objectPath(let value): return g_variant_new_object_path(value)
        case .variant(let inner): return g_variant_new_variant(inner.makeGVariant())
        case .tuple(let items):
            let children: [OpaquePointer?] = items.map { $0.makeGVariant() }
            return children.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        case .array(let elementType, let items):
            let type = g_variant_type_new(elementType)
            defer { g_variant_type_free(type) }
            let children: [OpaquePointer?] = items.map { $0.makeGVariant() }
            return children.withUnsafeBufferPointer { g_variant_new_array(type, $0.baseAddress, gsize($0.count)) }
        case .dictEntry(let key, let value):
            return g_variant_new_dict_entry(key.makeGVariant(), value.makeGVariant())
        }
    }

    /// Reads a `GVariant*` without taking ownership of it.
    init(_ value: OpaquePointer) {
        let type = String(cString: g_variant_get_type_string(value))
        switch g_variant_classify(value) {
        case G_VARIANT_CLASS_BOOLEAN: self = .bool(g_variant_get_boolean(value) != 0)
        case G_VARIANT_CLASS_BYTE: self = .byte(g_variant_get_byte(value))
        case G_VARIANT_CLASS_INT16: self = .int32(Int32(g_variant_get_int16(value)))
        case G_VARIANT_CLASS_UINT16: self = .uint32(UInt32(g_variant_get_uint16(value)))
        case G_VARIANT_CLASS_INT32: self = .int32(g_variant_get_int32(value))
        case G_VARIANT_CLASS_UINT32: self = .uint32(g_variant_get_uint32(value))
        case G_VARIANT_CLASS_INT64: self = .int64(Int64(g_variant_get_int64(value)))
        case G_VARIANT_CLASS_UINT64: self = .uint64(UInt64(g_variant_get_uint64(value)))
        case G_VARIANT_CLASS_HANDLE: self = .int32(g_variant_get_handle(value))
        case G_VARIANT_CLASS_DOUBLE: self = .double(g_variant_get_double(value))
        case G_VARIANT_CLASS_STRING, G_VARIANT_CLASS_SIGNATURE:
            self = .string(String(cString: g_variant_get_string(value, nil)))
        case G_VARIANT_CLASS_OBJECT_PATH: self = .objectPath(String(cString: g_variant_get_string(value, nil)))
        case G_VARIANT_CLASS_VARIANT:
            let inner = g_variant_get_variant(value)!
            defer { g_variant_unref(inner) }
            self = .variant(Variant(inner))
        case G_VARIANT_CLASS_DICT_ENTRY:
            let children = Self.children(of: value)
            self = .dictEntry(children[0], children[1])
        case G_VARIANT_CLASS_ARRAY:
            self = .array(elementType: String(type.dropFirst()), Self.children(of: value))
        default: // tuples, and maybes, which Reveille never sends
            self = .tuple(Self.children(of: value))
        }
    }

    private static func children(of value: OpaquePointer) -> [Variant] {
        (0..<g_variant_n_children(value)).map { index in
            let child = g_variant_get_child_value(value, index)!
            defer { g_variant_unref(child) }
            return Variant(child)
        }
    }

    // GVariant aborts on invalid UTF-8; Swift strings are valid already, but C strings
    // from elsewhere may carry NULs, which D-Bus strings cannot.
    // (Looked for in the bytes: `contains` on the String walked its Characters, half of the
    // agent's time for a 2 MiB page of 10,000 alarms.)
    private static func validUTF8(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacing("\0", with: "\u{FFFD}") : text
    }
}
