ORDERS_DESCRIPTION = "Look up and track orders."
LOOKUP_DESCRIPTION = "Look up an order by its id."
TRACK = "Track a parcel."
TRACK_DESCRIPTION = TRACK
