# Policies of configs/ipsec-gw.toml's gateway (ipsec-secgw's sp lines): traffic between the sites
# is encrypted, IKE (UDP 500) passes in the clear, and what no policy names is dropped.
sp ipv4 out esp protect 10 pri 10 src 192.168.1.0/24 dst 192.168.2.0/24
sp ipv4 out esp protect 11 pri 10 src 192.168.1.0/24 dst 192.168.3.0/24
sp ipv6 out esp protect 12 pri 10 src 2001:db8:a::/48 dst 2001:db8:b::/48
sp ipv4 out esp protect 13 pri 10 src 192.168.1.0/24 dst 172.16.1.9/32
sp ipv4 out esp bypass pri 20 proto 17 sport 500:500 dport 500:500

sp ipv4 in esp protect 20 pri 10 src 192.168.2.0/24 dst 192.168.1.0/24
sp ipv4 in esp protect 21 pri 10 src 192.168.3.0/24 dst 192.168.1.0/24
sp ipv6 in esp protect 22 pri 10 src 2001:db8:b::/48 dst 2001:db8:a::/48
sp ipv4 in esp protect 23 pri 10 src 172.16.1.9/32 dst 192.168.1.0/24
sp ipv4 in esp bypass pri 20 proto 17 sport 500:500 dport 500:500
