/** Version of the management API description (the spec's "API description version"). */
export const API_VERSION = '0.0.13';
/** Agent link protocol, "major.minor"; a different major is refused. */
export const PROTOCOL_VERSION = '1.0';
export const API_PREFIX = '/api/v1';
export const API_LICENSE = 'MIT OR Apache-2.0';
