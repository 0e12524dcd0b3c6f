import Foundation
import Records

/// What a controller's cache name keeps on disk, beside the store's file —
/// Core Data's section cache: the sections (names and counts) and index
/// titles of a request's results, with the store and the version they were
/// computed at. A later controller of the same cache name, request and
/// store version (in this process or another, after a relaunch) takes them
/// instead of reading every row's section name; any other finds them stale
/// and replaces them. A cache that cannot be read is not used.
package struct _SectionCache: Codable, Equatable {
    package struct Section: Codable, Equatable {
        package var name: String
        package var count: Int

        package init(name: String, count: Int) {
            self.name = name
            self.count = count
        }
    }

    /// The cache name.
    package var name: String
    /// The store's identifier (kept by compactions) and version.
    package var storeID: UInt64
    package var storeVersion: Int64
    /// The request, as `_FetchCacheKey.persistentDescription` writes it.
    package var request: String
    package var sections: [Section]
    /// The index titles as a controller without a delegate gives them.
    package var indexTitles: [String]

    package init(name: String, storeID: UInt64, storeVersion: Int64, request: String, sections: [Section], indexTitles: [String]) {
        self.name = name
        self.storeID = storeID
        self.storeVersion = storeVersion
        self.request = request
        self.sections = sections
        self.indexTitles = indexTitles
    }
}

extension ObjectStore {
    /// The folder of the store's section caches: next to its file
    /// (`.NAME.caches`); nil for a store without a file.
    var sectionCacheFolder: URL? {
        guard let fileURL else { return nil }
        return fileURL.deletingLastPathComponent().appendingPathComponent(".\(fileURL.lastPathComponent).caches")
    }

    /// The file of the cache `name` (its name's stable hash: any name, any characters).
    func sectionCacheURL(_ name: String) -> URL? {
        sectionCacheFolder?.appendingPathComponent(String(_stableHash(Array(name.utf8)), radix: 16) + ".json")
    }

    /// The identifier of the store's file and its version now, when the
    /// store has a file (nil otherwise: no cache is kept on disk).
    package var cacheIdentity: (storeID: UInt64, version: Int64)? {
        guard fileURL != nil, let storeID = persistence.storeIdentifier else { return nil }
        return (storeID, version)
    }

    /// The sections kept under `name` for `request` at `version`; nil when
    /// there are none, they are stale, or they cannot be read.
    package func sectionCache(named name: String, request: String, version: Int64) -> _SectionCache? {
        guard let url = sectionCacheURL(name), let storeID = persistence.storeIdentifier,
            let data = FileManager.default.contents(atPath: url.path),
            let cache = try? JSONDecoder().decode(_SectionCache.self, from: data),   // unreadable: recomputed
            cache.name == name, cache.storeID == storeID, cache.storeVersion == version, cache.request == request
        else { return nil }
        return cache
    }

    /// Keeps `cache` on disk, replacing what its name held: written aside,
    /// then renamed over. A cache that cannot be written is not kept (the
    /// next fetch computes the sections again): it is a cache, not data.
    package func keepSectionCache(_ cache: _SectionCache) {
        guard let folder = sectionCacheFolder, let url = sectionCacheURL(cache.name) else { return }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard let data = try? JSONEncoder().encode(cache) else { return }
        try? data.write(to: url, options: .atomic)
    }

    /// Deletes the section caches kept on disk: `name`'s, or every one.
    func removeSectionCaches(named name: String?) {
        guard let folder = sectionCacheFolder else { return }
        if let name, let url = sectionCacheURL(name) {
            try? FileManager.default.removeItem(at: url)
        } else {
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
