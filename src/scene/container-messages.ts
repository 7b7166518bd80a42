/** Reply id for a request that could not be read at all: the client fails every pending request. */
export const UNREADABLE_REQUEST_ID = -1;
