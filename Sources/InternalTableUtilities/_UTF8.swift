/// Whether `bytes` are well-formed UTF-8 (no overlong forms, surrogates or
/// bytes past U+10FFFF). `String(validating:as:)` does the same but needs
/// macOS 15 / iOS 18.
package func _isValidUTF8<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid: continue
        case .emptyInput: return true
        case .error: return false
        }
    }
}

/// The text `bytes` spell in UTF-8, or nil when they are not well-formed.
package func _validatedUTF8String<C: Collection>(_ bytes: C) -> String? where C.Element == UInt8 {
    _isValidUTF8(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
}
