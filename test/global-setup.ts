// Replaced by the shared corpus-release build once the release builder lands.
export default function setup(): void {}
