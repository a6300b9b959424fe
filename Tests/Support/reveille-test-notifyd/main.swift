print("notifyd")
